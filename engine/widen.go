package engine

import (
	"context"
	"fmt"
	"sync"
)

// Widen connects n-1 more sessions to t beside first, answering with policy
// and recording into first's recording, and returns the group of all n
// with first at its head: the app's way to run a load over several
// sessions on the connection it already has. The caller closes the
// extra sessions (Sessions()[1:]) when the run is over; first stays as
// it was. When one cannot connect, the others it opened are closed and
// its error is returned.
func Widen(ctx context.Context, first *Session, t Target, policy AnswerPolicy, n int) (*Group, error) {
	if first == nil {
		return nil, fmt.Errorf("connect: no session to widen: connect first")
	}
	if n < 1 || n > maxGroup {
		return nil, fmt.Errorf("sessions: %d: want 1 to %d", n, maxGroup)
	}
	g := &Group{sessions: make([]*Session, n)}
	g.sessions[0] = first
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 1; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.sessions[i], errs[i] = connect(ctx, t, policy, first.rec, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			continue
		}
		extra := &Group{sessions: g.sessions[1:]}
		extra.Close()
		return nil, fmt.Errorf("session %d of %d: %w", i+1, n, err)
	}
	return g, nil
}
