package value_test

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/value"
)

func Example() {
	L := lua.NewState()
	defer L.Close()

	v, err := value.Decode(L, []byte(`{"tags":[],"meta":{},"ids":[1,null,3]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	L.SetGlobal("msg", v)
	_ = L.DoString(`msg.ids[2] = 2; msg.note = "ok"`)

	out, err := value.Encode(v, value.EncodeOptions{})
	fmt.Println(string(out), err)

	_, err = value.Decode(L, []byte(`{"id": 9007199254740993}`))
	fmt.Println(err)
	// Output:
	// {"ids":[1,2,3],"meta":{},"note":"ok","tags":[]} <nil>
	// json.decode: integer 9007199254740993 at offset 7 is beyond 2^53 and would lose precision; send it as a string
}

func ExampleEncode() {
	L := lua.NewState()
	defer L.Close()
	_ = L.DoString(`return {name = "search", args = {limit = 10, tags = {"a", "b"}}}`)
	out, _ := value.Encode(L.Get(-1), value.EncodeOptions{Indent: "  "})
	fmt.Println(string(out))
	// Output:
	// {
	//   "args": {
	//     "limit": 10,
	//     "tags": [
	//       "a",
	//       "b"
	//     ]
	//   },
	//   "name": "search"
	// }
}
