package catalog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/privfile"
)

// maxParamsFile bounds a params file: it holds values, not data.
const maxParamsFile = 1 << 20

// ReadParamsFile reads a --params-file: a JSON object of names to values
// ({"github_token": "..."}; a value that is not a string is kept as its
// JSON text), or NAME=VALUE lines (blank lines and # comments skipped).
// Errors name the file and the line or member, never a value.
func ReadParamsFile(path string) (Params, error) {
	data, err := privfile.ReadLimited(path, maxParamsFile)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "params", "cannot read the params file %s: %v", path, err)
	}
	return ParseParams(path, data)
}

// ParseParams reads the contents of a params file named name (for errors).
func ParseParams(name string, data []byte) (Params, error) {
	out := Params{}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(t, &raw); err != nil {
			return nil, errs.Errorf(errs.Invalid, "params", "%s: not a JSON object of names to values: %v", name, syntaxOnly(err))
		}
		for k, v := range raw {
			if !validParam(k) {
				return nil, errs.Errorf(errs.Invalid, "params", "%s: %q is not a parameter name (letters, digits, _ . -)", name, k)
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				out[k] = s
			} else {
				out[k] = string(v)
			}
		}
		return out, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxParamsFile)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || !validParam(k) {
			return nil, errs.Errorf(errs.Invalid, "params", "%s:%d: not NAME=VALUE; write one parameter per line, or a JSON object", name, n)
		}
		out[k] = v
	}
	return out, nil
}

// ParseSet reads one --set NAME=VALUE.
func ParseSet(arg string) (name, value string, err error) {
	k, v, ok := strings.Cut(arg, "=")
	if !ok || !validParam(k) {
		// The value may be a secret: name only what is wrong with the name.
		return "", "", errs.Errorf(errs.Invalid, "params", "--set takes NAME=VALUE (a name of letters, digits, _ . -): --set github_token=...")
	}
	return k, v, nil
}

func validParam(s string) bool { return paramRE.MatchString(s) }

// syntaxOnly keeps a JSON error's position and drops any quoted input.
func syntaxOnly(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "invalid JSON at byte " + strconv.FormatInt(se.Offset, 10)
	}
	return "the values must be strings, numbers or booleans"
}
