package recorder

import (
	"regexp"
	"testing"
	"time"
)

func TestTraceIDsAreStableAndDistinct(t *testing.T) {
	created := time.Date(2026, 11, 30, 12, 0, 0, 123, time.UTC)
	a := TraceIDsOf(Meta{Created: created, Title: "one"})
	b := TraceIDsOf(Meta{Created: created, Title: "renamed later"})
	if a.Traceparent(1, 2) != b.Traceparent(1, 2) {
		t.Fatalf("the title changed the IDs: %s vs %s", a.Traceparent(1, 2), b.Traceparent(1, 2))
	}
	tp := a.Traceparent(1, 2)
	if !regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`).MatchString(tp) {
		t.Fatalf("traceparent %q is not W3C form", tp)
	}
	if a.TraceHex(1) == a.TraceHex(2) || a.SpanHex(1) == a.SpanHex(2) {
		t.Fatal("two spans share an ID")
	}
	c := TraceIDsOf(Meta{Created: created.Add(time.Nanosecond)})
	if c.TraceHex(1) == a.TraceHex(1) {
		t.Fatal("two recordings share a trace ID")
	}
}

func TestParentOf(t *testing.T) {
	rec := New(Meta{})
	call := rec.Begin(NewSpan("s1", Outgoing, "tools/call"))
	req := NewSpan("s1", Incoming, "sampling/createMessage")
	req.Parent = call
	child := rec.Begin(req)
	if p, ok := rec.ParentOf(child); !ok || p != call {
		t.Errorf("ParentOf(open child) = %d, %v; want %d, true", p, ok, call)
	}
	if p, ok := rec.ParentOf(call); !ok || p != 0 {
		t.Errorf("ParentOf(root) = %d, %v; want 0, true", p, ok)
	}
	if _, ok := rec.ParentOf(99); ok {
		t.Error("ParentOf(a span not in the store) says it is there")
	}
}
