package recorder

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

func TestExportGolden(t *testing.T) {
	exports := []struct {
		file  string
		write func(io.Writer, *Snapshot) error
	}{
		{"fixture.recording.json", Save},
	}
	for _, e := range exports {
		t.Run(e.file, func(t *testing.T) {
			var buf bytes.Buffer
			if err := e.write(&buf, fixedSnapshot()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, e.file, buf.Bytes())
			// Exporting twice gives the same bytes: IDs and order are
			// deterministic.
			var again bytes.Buffer
			e.write(&again, fixedSnapshot())
			if !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Error("two exports of the same recording differ")
			}
		})
	}
	for name, snap := range map[string]func() *Snapshot{"fixture": fixedSnapshot, "rounds": roundsSnapshot} {
		t.Run(name+".summary.json", func(t *testing.T) {
			b, err := json.MarshalIndent(Summarize(snap()), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, name+".summary.json", append(b, '\n'))
		})
	}
	t.Run("rounds.recording.json", func(t *testing.T) {
		var buf bytes.Buffer
		if err := Save(&buf, roundsSnapshot()); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, "rounds.recording.json", buf.Bytes())
	})
}

// snapshots are the recordings every file format must handle.
func snapshots() map[string]*Snapshot {
	return map[string]*Snapshot{
		"fixture": fixedSnapshot(),
		"one":     oneRequestSnapshot(),
		"empty":   emptySnapshot(),
		"load":    loadSnapshot(2000, 7),
		"rounds":  roundsSnapshot(),
		"disordered": {Meta: Meta{Created: fixedCreated}, Version: 1, Events: []Event{}, Now: msd(10), Spans: []*Span{
			{ID: 1, Direction: Incoming, Method: "ping", Kind: KindPing, Received: msd(5), Queued: msd(4), Serving: msd(2), Answered: msd(3), Status: StatusOK},
			{ID: 2, Direction: Incoming, Method: "ping", Kind: KindPing, Received: msd(1), Queued: Unset, Serving: Unset, Answered: Unset},
		}},
	}
}
