package workloadfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Marshal writes the file as TOML that [Parse] reads back as f: the keys
// f has (those read, or set by [FromWorkload]), [load] in the order of
// [LoadKeys], then each operation. Comments of a file read are not kept.
func (f *File) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString("# A workload for inspector run --workload FILE and the app's Workload panel;\n# docs/load.md describes every key.\n")
	if f.Defined("seed") {
		fmt.Fprintf(&b, "seed = %d\n", f.Seed)
	}
	if f.Defined("thresholds") || len(f.Thresholds) > 0 {
		parts := make([]string, len(f.Thresholds))
		for i, t := range f.Thresholds {
			parts[i] = Quote(t)
		}
		fmt.Fprintf(&b, "thresholds = [%s]\n", strings.Join(parts, ", "))
	}
	var shape []string
	s := f.Load
	for _, key := range LoadKeys {
		if !f.Defined("load." + key) {
			continue
		}
		var v string
		switch key {
		case "calls":
			v = strconv.Itoa(s.Calls)
		case "concurrency":
			v = strconv.Itoa(s.Concurrency)
		case "duration":
			v = durationValue(s.Duration)
		case "rate":
			v = numberValue(s.Rate)
		case "max_in_flight":
			v = strconv.Itoa(s.MaxInFlight)
		case "stages":
			v = Quote(s.Stages)
		case "sessions":
			v = strconv.Itoa(s.Sessions)
		case "call_timeout":
			v = durationValue(s.CallTimeout)
		}
		shape = append(shape, key+" = "+v)
	}
	if len(shape) > 0 {
		fmt.Fprintf(&b, "\n[load]\n%s\n", strings.Join(shape, "\n"))
	}
	for _, op := range f.Operations {
		WriteOperation(&b, "", op)
	}
	return b.Bytes()
}

// WriteOperation writes one [[operations]] table, after a comment line
// when comment is not "".
func WriteOperation(w io.Writer, comment string, op Operation) {
	b := new(strings.Builder)
	b.WriteString("\n")
	if comment != "" {
		fmt.Fprintf(b, "# %s\n", Comment(comment))
	}
	fmt.Fprintf(b, "[[operations]]\nmethod = %s\nname = %s\nweight = %s\n", Quote(op.Method), Quote(op.Name), numberValue(op.Weight))
	if len(op.Args) > 0 {
		fmt.Fprintf(b, "args = %s\n", Value(op.Args))
	}
	io.WriteString(w, b.String())
}

func durationValue(d time.Duration) string { return Quote(d.String()) }

// numberValue writes a float as TOML reads it back: whole numbers
// without a fraction.
func numberValue(x float64) string {
	if x == float64(int64(x)) && x < 1e15 && x > -1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Comment keeps a comment on its line.
func Comment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// Quote is s as a TOML basic string: JSON's escapes (\" \\ \n \t
// \uXXXX ...) are all TOML's too.
func Quote(s string) string {
	b, _ := json.Marshal(s)
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
}

// bareKey matches a key TOML takes unquoted.
var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Value writes a JSON value as TOML, inline: objects as inline tables
// with their keys sorted, arrays as arrays. TOML has no null: a null
// member is left out (in an array, where it cannot be, it is "").
func Value(v any) string {
	switch x := v.(type) {
	case nil:
		return `""`
	case string:
		return Quote(x)
	case bool:
		return fmt.Sprint(x)
	case json.Number:
		return x.String()
	case float64:
		if x == float64(int64(x)) && x < 1e15 && x > -1e15 {
			return fmt.Sprint(int64(x))
		}
		return fmt.Sprint(x)
	case int64, int:
		return fmt.Sprint(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Value(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []map[string]any: // an array of tables, as the TOML decoder gives it
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Value(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k, e := range x {
			if e != nil {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			key := k
			if !bareKey.MatchString(k) {
				key = Quote(k)
			}
			parts[i] = key + " = " + Value(x[k])
		}
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	b, _ := json.Marshal(v)
	return Quote(string(b))
}
