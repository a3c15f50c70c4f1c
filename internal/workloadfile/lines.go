package workloadfile

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// lineFinder returns a function giving the line (from 1) at which a
// dotted key of the file is written: "load.rate", "operations.2.weight"
// (the third [[operations]] table's weight; its table's line when the
// key is not written), "operations.args" (the first operation's), "thresholds";
// 0 when it cannot tell. It reads the plain forms a person and
// inspector init write: [table] and [[table]] headers, KEY = VALUE lines.
func lineFinder(data []byte) func(key string) int {
	lines := map[string]int{}
	table, index := "", -1
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxSize)
	note := func(k string, n int) {
		if _, ok := lines[k]; !ok {
			lines[k] = n
		}
	}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "[["):
			table = strings.TrimSpace(strings.Trim(strings.SplitN(line, "#", 2)[0], "[] \t"))
			if table == "operations" {
				index++
				note(fmt.Sprintf("operations.%d", index), n)
			}
		case strings.HasPrefix(line, "["):
			table = strings.TrimSpace(strings.Trim(strings.SplitN(line, "#", 2)[0], "[] \t"))
		default:
			k, _, ok := strings.Cut(line, "=")
			k = strings.Trim(strings.TrimSpace(k), `"'`)
			if !ok || k == "" || strings.HasPrefix(k, "#") {
				continue
			}
			switch {
			case table == "operations":
				note(fmt.Sprintf("operations.%d.%s", index, k), n)
				note("operations."+k, n)
			case table != "":
				note(table+"."+k, n)
			default:
				note(k, n)
			}
		}
	}
	return func(key string) int {
		if n, ok := lines[key]; ok {
			return n
		}
		if i := strings.LastIndex(key, "."); i > 0 { // the operation's table
			return lines[key[:i]]
		}
		return 0
	}
}
