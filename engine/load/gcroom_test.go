package load

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestGCRoomHeldForRuns: the reserve that spaces out garbage collections
// is held while any run goes on, a load or a single call, and let go
// when the last one ends.
func TestGCRoomHeldForRuns(t *testing.T) {
	if gcReserved() {
		t.Fatal("the reserve is held before any run")
	}
	first, second := holdGCRoom(), holdGCRoom()
	first()
	first() // a second release of the same hold changes nothing
	if !gcReserved() {
		t.Fatal("the reserve was let go while a run still holds it")
	}
	second()
	if gcReserved() {
		t.Fatal("the reserve is still held after the last run ended")
	}

	// A load, and one call too: a single fan-out is a burst of requests
	// whose garbage the reserve spaces out as much as a load's.
	s := connectDemo(t)
	for _, tc := range []struct {
		what string
		w    Workload
	}{
		{"a load run", Workload{Tool: "echo", Args: json.RawMessage(`{"text":"x"}`), Rate: 20, Duration: time.Second}},
		{"a single call", Workload{Tool: "slow", Args: json.RawMessage(`{"ms":2000,"steps":1}`)}},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Run(context.Background(), one(s), tc.w, nil)
			done <- err
		}()
		if !waitFor(5*time.Second, gcReserved) {
			t.Errorf("the reserve was not held during %s", tc.what)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", tc.what, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s did not end within a minute", tc.what)
		}
		if gcReserved() {
			t.Errorf("the reserve is still held after %s", tc.what)
		}
	}
}
