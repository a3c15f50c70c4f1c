package recorder

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

func TestParseTraceparent(t *testing.T) {
	for _, tc := range []struct {
		in, trace, span string
		err             string // part of the error, "" when valid
	}{
		{in: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", trace: "0af7651916cd43dd8448eb211c80319c", span: "b7ad6b7169203331"},
		{in: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00", trace: "0af7651916cd43dd8448eb211c80319c", span: "b7ad6b7169203331"},
		{in: "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-later", trace: "0af7651916cd43dd8448eb211c80319c", span: "b7ad6b7169203331"},
		{in: "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01", err: "not a lowercase hex digit"},
		{in: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331", err: "characters, want 55"},
		{in: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-x", err: "version 00 has exactly 55"},
		{in: "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", err: "version ff"},
		{in: "00-00000000000000000000000000000000-b7ad6b7169203331-01", err: "trace id is all zeros"},
		{in: "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", err: "parent id is all zeros"},
		{in: "00_0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331_01", err: "separated by dashes"},
		{in: "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x", err: "not followed by a dash"},
		{in: "", err: "0 characters"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			trace, span, err := ParseTraceparent(tc.in)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			case tc.err == "" && (hex.EncodeToString(trace[:]) != tc.trace || hex.EncodeToString(span[:]) != tc.span):
				t.Fatalf("trace %x span %x, want %s %s", trace, span, tc.trace, tc.span)
			}
		})
	}
}

func TestTraceContextOf(t *testing.T) {
	for _, tc := range []struct {
		params string
		want   TraceContext
		found  bool
	}{
		{`{"_meta":{"traceparent":"00-a-b-01","tracestate":"k=v","x":1}}`, TraceContext{"00-a-b-01", "k=v"}, true},
		{`{"_meta":{"progressToken":1}}`, TraceContext{}, false},
		{`{"traceparent":"00-a-b-01"}`, TraceContext{}, false}, // not in _meta
		{`{"_meta":{"traceparent":42}}`, TraceContext{Traceparent: "42"}, true},
		{`not json "traceparent"`, TraceContext{}, false},
	} {
		got, found := TraceContextOf([]byte(tc.params))
		if got != tc.want || found != tc.found {
			t.Errorf("TraceContextOf(%s) = %+v, %v; want %+v, %v", tc.params, got, found, tc.want, tc.found)
		}
	}
}

// TestRecordingTraceIDs checks that a live recording's IDs are the ones
// its snapshot (and so its exports) derive.
func TestRecordingTraceIDs(t *testing.T) {
	rec := New(Meta{Created: time.Date(2026, 11, 30, 12, 0, 0, 5, time.UTC)})
	if got, want := rec.TraceIDs().Traceparent(1, 2), TraceIDsOf(rec.Snapshot().Meta).Traceparent(1, 2); got != want {
		t.Errorf("recording gives %s, its snapshot %s", got, want)
	}
}
