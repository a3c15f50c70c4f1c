package app

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
)

func TestBridge(t *testing.T) {
	b := newBridge(engine.DefaultAnswerPolicy())
	b.journalDir = ""
	var mu sync.Mutex
	var sessions []bool
	done := make(chan error, 1)
	b.OnSession = func(s *engine.Session, err error) {
		mu.Lock()
		sessions = append(sessions, s != nil)
		mu.Unlock()
	}
	b.onRunDone = func(_ load.RunResult, err error) { done <- err }

	if err := b.Run(load.Workload{Tool: "echo"}); !errors.Is(err, errNotConnected) {
		t.Errorf("Run without a connection: %v, want ErrNotConnected", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := b.Connect(ctx, engine.Target{}); err != nil {
		t.Fatal(err)
	}
	policy := b.Policy()
	policy.Dispatch = engine.DispatchPolicy{Mode: engine.Serial}
	b.setPolicy(policy)
	if got := b.session().AnswerPolicy().Dispatch.Mode; got != engine.Serial {
		t.Errorf("SetPolicy did not reach the session: %v", got)
	}
	if err := b.Run(load.Workload{Tool: "slow", Args: []byte(`{"ms":10000,"steps":2}`)}); err != nil {
		t.Fatal(err)
	}
	if err := b.Run(load.Workload{Tool: "echo"}); !errors.Is(err, errRunning) {
		t.Errorf("a second Run: %v, want ErrRunning", err)
	}
	b.Stop()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("a stopped run reported no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not end the run")
	}
	if b.running() {
		t.Errorf("still running after the run ended")
	}
	if err := b.disconnect(); err != nil {
		t.Errorf("Disconnect: %v", err)
	}
	if b.session() != nil {
		t.Errorf("a session after Disconnect")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sessions) != 2 || !sessions[0] || sessions[1] {
		t.Errorf("OnSession calls (connected?) %v, want [true false]", sessions)
	}
}
