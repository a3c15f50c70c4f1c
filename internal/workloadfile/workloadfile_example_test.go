package workloadfile_test

import (
	"fmt"

	"github.com/fanout-inspector/inspector/internal/workloadfile"
)

// A workload file read, turned into the load it runs, and written back
// as the app's Workload panel saves it.
func Example() {
	f, err := workloadfile.Parse("mix.toml", []byte(`
seed = 7
[load]
calls = 200
concurrency = 8

[[operations]]
method = "tools/call"
name = "echo"
weight = 70
args = { text = "hello" }

[[operations]]
method = "resources/read"
name = "demo://readme"
weight = 30
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	w, sessions, err := f.Workload()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d calls, %d at once, %d operations, %d session\n", w.Calls, w.Concurrency, len(w.Operations), sessions)
	saved, _ := workloadfile.FromWorkload(w, sessions, nil)
	fmt.Print(string(saved.Marshal()))

	_, err = workloadfile.Parse("bad.toml", []byte("[[operations]]\nmethod = \"tools/call\"\nname = \"echo\"\nwieght = 1\n"))
	fmt.Println(err)
	// Output:
	// 200 calls, 8 at once, 2 operations, 1 session
	// # A workload for inspector run --workload FILE and the app's Workload panel;
	// # docs/load.md describes every key.
	// seed = 7
	//
	// [load]
	// calls = 200
	// concurrency = 8
	//
	// [[operations]]
	// method = "tools/call"
	// name = "echo"
	// weight = 70
	// args = { text = "hello" }
	//
	// [[operations]]
	// method = "resources/read"
	// name = "demo://readme"
	// weight = 30
	// bad.toml:4: unknown key "operations.wieght"; the keys are seed, thresholds, [load] calls, concurrency, duration, rate, max_in_flight, stages, sessions, call_timeout and [[operations]] method, name, weight, args
}
