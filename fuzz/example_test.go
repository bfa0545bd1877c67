package fuzz

import "fmt"

// A script is bytes: seven parameter bytes, then operations. This one adds
// the small keys 0..19 as one batch (kernel-sized), probes them, reloads
// every filter, removes key 3 from the filters that can remove, and adds 50
// made-up keys: runScript checks every invariant after every step and
// reports the first one broken.
func Example() {
	ids := make([]byte, 20)
	for i := range ids {
		ids[i] = byte(i)
	}
	script := newScript(7, 4, 30, 2, 0, 3, 20).
		batch(opAddBatch, ids...).
		batch(opContainsBatch, ids...).
		op(opReload, 0).
		op(opRemove, 3).
		op(opFill, 49).
		bytes()
	st, err := runScript(script)
	fmt.Println("error:", err)
	for op, n := range st.ops {
		if n > 0 {
			fmt.Printf("%s: %d\n", opNames[op], n)
		}
	}
	// Output:
	// error: <nil>
	// add-batch: 1
	// contains-batch: 1
	// remove: 1
	// reload: 1
	// fill: 1
}
