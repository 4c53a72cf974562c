// Package value converts between JSON, Go values and Lua values, in one place,
// so every binding maps them the same way.
//
// JSON to Lua (Decode, and ToLua for Go values):
//
//   - An object becomes a table with the ObjectMeta marker and an array a
//     table with the ArrayMeta marker, so {} and [] survive a round trip.
//   - null becomes Null, a sentinel userdata (json.null), also inside arrays
//     and objects: [1,null] has length 2 and {"a":null} keeps its key.
//   - Numbers become Lua numbers (float64). An integer literal beyond ±2^53
//     is an error rather than a silent rounding; send such values as strings.
//   - Strings are bytes: escapes are decoded (a lone surrogate becomes
//     U+FFFD) and invalid UTF-8 is kept as is.
//
// Lua to JSON (Encode, and FromLua for Go values):
//
//   - A table with ArrayMeta is an array of its keys 1..n; one with ObjectMeta
//     is an object, integer keys written as decimal strings.
//   - An unmarked table (other metatables are ignored, metamethods never
//     called) is an array if its keys are exactly 1..n, an object if they are
//     all strings, and {} if it is empty. Holes, mixed keys and keys of other
//     types are errors: use Null for holes.
//   - Object keys are written sorted, so output is stable.
//   - Integral numbers within ±2^53 are written as integers, others in the
//     shortest form that reads back the same (with an exponent beyond 2^53,
//     so Decode reads them back); NaN and ±Inf are errors.
//   - Strings are escaped as JSON requires (not <, > or &); invalid UTF-8 is
//     written as U+FFFD.
//   - Cycles, nesting deeper than MaxDepth, functions, threads, channels and
//     userdata other than Null are errors.
//
// Every error is of kind errs.Invalid and names where it happened: a byte
// offset on decode, a path such as $.a[2] on encode (array indices in paths
// are the 1-based Lua indices).
//
// Null and the marker metatables are process-wide and never mutated after
// init, so states in different goroutines may share them.
package value
