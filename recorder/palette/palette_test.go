package palette

import (
	"image/color"
	"testing"

	"github.com/fanout-inspector/inspector/recorder"
)

func TestPalette(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	if got := Hex(Kind(recorder.KindTool)); got != "#64748b" {
		t.Errorf("tool is %s, want the app's slate #64748b", got)
	}
	if Kind(recorder.Kind(200)) != Kind(recorder.KindOther) {
		t.Error("an unknown kind does not get the colour of other requests")
	}
	// Every kind in the legend has a colour of its own.
	seen := map[color.RGBA]recorder.Kind{}
	for _, k := range Kinds {
		if o, ok := seen[Kind(k)]; ok {
			t.Errorf("%s and %s share a colour", k, o)
		}
		seen[Kind(k)] = k
	}
	if got := Queued(white, recorder.KindSampling); got != (color.RGBA{186, 211, 252, 255}) {
		t.Errorf("queued sampling on white is %v, want a pale blue", got)
	}
	if Mix(white, Failed, 0) != white || Mix(white, Failed, 1) != Failed {
		t.Error("Mix does not give a at 0 and b at 1")
	}
	if Verdict("whatever") != VerdictNone || Verdict(recorder.VerdictSerialized) != VerdictSerialized {
		t.Error("verdict colours")
	}
}
