package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/fanout-inspector/inspector/recorder"
)

// maxGroup bounds how many sessions one group may open.
const maxGroup = 1000

// Group is several independent sessions to one server, recording into
// one [recorder.Recording]: a load test's generators. Each session is its
// own connection (a server process of its own over stdio, an HTTP
// session of its own, an in-process demo server of its own) and answers
// its server's requests under the same [AnswerPolicy]; spans and events
// carry their session's name, s1 to sN. All its methods are safe for
// concurrent use.
type Group struct {
	sessions []*Session
}

// ConnectGroup connects n sessions to t at once, named s1 to sn, each
// answering with policy and recording into rec. When one cannot connect, the
// others are closed and its error is returned.
func ConnectGroup(ctx context.Context, t Target, policy AnswerPolicy, rec *recorder.Recording, n int) (*Group, error) {
	if n < 1 || n > maxGroup {
		return nil, fmt.Errorf("connect: %d sessions: want 1 to %d", n, maxGroup)
	}
	g := &Group{sessions: make([]*Session, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.sessions[i], errs[i] = connectNamed(ctx, t, policy, rec, nil, fmt.Sprintf("s%d", i+1))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			continue
		}
		g.Close()
		if n > 1 {
			err = fmt.Errorf("session s%d of %d: %w", i+1, n, err)
		}
		return nil, err
	}
	return g, nil
}

// Sessions returns the group's sessions, s1 first.
func (g *Group) Sessions() []*Session { return g.sessions }

// Err is why the first session that ended on its own ended (its
// connection was lost), named after the session when there are several;
// nil while none has.
func (g *Group) Err() error {
	for _, s := range g.sessions {
		select {
		case <-s.Done():
			if err := s.Err(); err != nil {
				if len(g.sessions) > 1 {
					return fmt.Errorf("session %s: %w", s.name, err)
				}
				return err
			}
		default:
		}
	}
	return nil
}

// Close closes every session of the group, at once.
func (g *Group) Close() error {
	errs := make([]error, len(g.sessions))
	var wg sync.WaitGroup
	for i, s := range g.sessions {
		if s != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Close()
			}()
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}
