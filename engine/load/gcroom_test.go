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

	s := connectDemo(t)
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), one(s), Workload{Tool: "echo", Args: json.RawMessage(`{"text":"x"}`), Rate: 20, Duration: time.Second}, nil)
		done <- err
	}()
	if !waitFor(5*time.Second, gcReserved) {
		t.Error("the reserve was not held during a run")
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the run did not end within a minute")
	}
	if gcReserved() {
		t.Error("the reserve is still held after the run")
	}

	// One call holds it too: a single fan-out is a burst of requests
	// whose garbage the reserve spaces out as much as a load's.
	go func() {
		_, err := Run(context.Background(), one(s), Workload{Tool: "slow", Args: json.RawMessage(`{"ms":2000,"steps":1}`)}, nil)
		done <- err
	}()
	if !waitFor(5*time.Second, gcReserved) {
		t.Error("the reserve was not held during a single call")
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the call did not end within a minute")
	}
	if gcReserved() {
		t.Error("the reserve is still held after the call")
	}
}
