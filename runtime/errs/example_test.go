package errs_test

import (
	"fmt"

	"github.com/luagent/luagent/runtime/errs"
)

func ExampleKindOf() {
	err := fmt.Errorf("loading config: %w", errs.New(errs.NotFound, "require", "module 'x' not found"))
	fmt.Println(errs.KindOf(err), errs.Is(err, errs.NotFound))
	// Output: not_found true
}
