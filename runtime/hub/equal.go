package hub

import (
	"reflect"

	"github.com/luagent/luagent/runtime/catalog"
)

// sameEntry reports whether two entries would start the same connection:
// their exported fields are equal, deeply, and for an HTTP entry so is its
// connectionId (its credentials are bound to it). Other unknown and
// managed members the catalog keeps for other tools do not count.
func sameEntry(a, b *catalog.Server) bool {
	if a.URL != "" && a.ConnectionID() != b.ConnectionID() {
		return false
	}
	return equalExported(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
}

func equalExported(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if a.Type().Field(i).IsExported() && !equalExported(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalExported(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !equalExported(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() || !equalExported(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	default:
		return a.Equal(b)
	}
}

// SameEntry reports whether Reload would keep a's connection for b: the
// entries start the same connection (their exported fields are equal).
func SameEntry(a, b *catalog.Server) bool { return sameEntry(a, b) }
