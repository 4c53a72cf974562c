package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/luagent/luagent/runtime/catalog"
)

// setJSON reads --set-json NAME=JSON: the value must be JSON, and agents
// take it as such (a binding's value, a typed parameter).
func setJSON(o *options, v string) error {
	k, val, err := catalog.ParseSet(v)
	if err == nil && !json.Valid([]byte(val)) {
		// Never the value: it may be a secret.
		err = fmt.Errorf("--set-json %s: the value is not JSON (quote a string: --set-json %s='\"text\"')", k, k)
	}
	if err != nil {
		return errors.New(strings.Replace(err.Error(), "--set takes", "--set-json takes", 1))
	}
	o.sets[k] = val
	if o.setsJSON == nil {
		o.setsJSON = map[string]bool{}
	}
	o.setsJSON[k] = true
	return nil
}

// paramsJSON names the parameters whose values are JSON text: --set-json's
// and a JSON params file's members that are not strings (unless --set
// gave the name a plain value).
func (o *options) paramsJSON(params catalog.Params) map[string]bool {
	out := map[string]bool{}
	for _, f := range o.paramFiles {
		data, err := os.ReadFile(f)
		if t := bytes.TrimSpace(data); err != nil || len(t) == 0 || t[0] != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		for k, v := range m {
			if len(v) > 0 {
				out[k] = v[0] != '"'
			}
		}
	}
	for k := range o.sets {
		out[k] = o.setsJSON[k]
	}
	for k, j := range out {
		if _, ok := params[k]; !ok || !j {
			delete(out, k)
		}
	}
	return out
}
