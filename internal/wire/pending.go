package wire

import (
	"fmt"
	"time"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Pending is the requests one peer sent that await the other's answer,
// by id key (see [Key]), with what the model needs to pair answers with
// them: how many duplicates of each (requests that reused its id while
// it was pending) are waiting to be refused, and which ids were answered
// lately, so that a second answer to one id is told from an answer to an
// id never sent. It is not safe for concurrent use: its owner locks.
type Pending[T any] struct {
	open   map[string]slot[T]
	recent [recentAnswers]ended // a ring of the ids that ended last
	next   int
}

// ended is an id that was answered, or given up on (dropped).
type ended struct {
	key     string
	dropped bool
}

type slot[T any] struct {
	v    T
	dups int // duplicates not yet refused
}

// recentAnswers is how many answered ids Pending remembers.
const recentAnswers = 256

// NewPending returns an empty table.
func NewPending[T any]() *Pending[T] { return &Pending[T]{open: map[string]slot[T]{}} }

// Get returns the request pending with id key.
func (p *Pending[T]) Get(key string) (T, bool) {
	s, ok := p.open[key]
	return s.v, ok
}

// Len is how many requests are pending.
func (p *Pending[T]) Len() int { return len(p.open) }

// Open notes a request sent with id key. When a request with that id is
// pending already, the new one is a duplicate: Open keeps the first,
// counts the duplicate and returns the first and true.
func (p *Pending[T]) Open(key string, v T) (first T, dup bool) {
	if s, ok := p.open[key]; ok {
		s.dups++
		p.open[key] = s
		return s.v, true
	}
	p.open[key] = slot[T]{v: v}
	var zero T
	return zero, false
}

// Pairing says what an answer answers.
type Pairing int

const (
	// Answers: the answer is the pending request's, which is forgotten.
	Answers Pairing = iota
	// RefusesDuplicate: an Invalid Request error (-32600) for an id with
	// a duplicate waiting: the refusal of the duplicate, which was
	// recorded when it came; the first request is still pending.
	RefusesDuplicate
	// AnswersAgain: a second answer to an id answered lately.
	AnswersAgain
	// AnswersDropped: a late answer to a request given up on ([Pending.Drop]):
	// its span ended already, and the answer is not news.
	AnswersDropped
	// AnswersNothing: no request with that id is pending or was lately.
	AnswersNothing
)

// Answer pairs an answer to id key with what it answers. refusal says
// the answer is an Invalid Request error (-32600), which is how a
// duplicate is refused.
func (p *Pending[T]) Answer(key string, refusal bool) (T, Pairing) {
	var zero T
	s, ok := p.open[key]
	if !ok {
		for _, e := range p.recent {
			if e.key == key && key != "" {
				if e.dropped {
					return zero, AnswersDropped
				}
				return zero, AnswersAgain
			}
		}
		return zero, AnswersNothing
	}
	if refusal && s.dups > 0 {
		s.dups--
		p.open[key] = s
		return zero, RefusesDuplicate
	}
	delete(p.open, key)
	p.remember(ended{key: key})
	return s.v, Answers
}

func (p *Pending[T]) remember(e ended) {
	p.recent[p.next] = e
	p.next = (p.next + 1) % recentAnswers
}

// Drop forgets the request pending with id key: it was given up on
// (cancelled, timed out), and an answer that still comes is late, not a
// protocol error.
func (p *Pending[T]) Drop(key string) {
	if _, ok := p.open[key]; ok {
		delete(p.open, key)
		p.remember(ended{key: key, dropped: true})
	}
}

// Take forgets the request pending with id key, without an answer (it
// was abandoned or cancelled), and returns it.
func (p *Pending[T]) Take(key string) (T, bool) {
	s, ok := p.open[key]
	delete(p.open, key)
	return s.v, ok
}

// Clear forgets everything (the connection is gone).
func (p *Pending[T]) Clear() {
	clear(p.open)
	p.recent = [recentAnswers]ended{}
}

// IsRefusal reports whether a JSON-RPC error code is the one a duplicate
// request is refused with.
func IsRefusal(code int64) bool { return code == jsonrpc.CodeInvalidRequest }

// DuplicateText says what was wrong with a request that reused the id of
// one still pending.
func DuplicateText(key string) string {
	return fmt.Sprintf("duplicate request id %s while it is still pending (a request id must not be reused within a session)", key)
}

// DuplicateRefused is the error of a duplicate's span: it was answered
// with an Invalid Request error and not served.
func DuplicateRefused(key string) string {
	return DuplicateText(key) + "; answered with JSON-RPC error -32600 and not served"
}

// AnswerText is the protocol event for an answer [Pending.Answer] could
// not pair with a request: from names the peer that wrote it ("server",
// "client").
func AnswerText(from, key string, pairing Pairing) string {
	if pairing == AnswersAgain {
		return fmt.Sprintf("the %s answered id %s a second time; the first answer stands", from, key)
	}
	return fmt.Sprintf("the %s answered id %s, which no pending request has", from, key)
}

// IdlessText says what the model did with a response without a usable
// id, which no request can be matched to.
func IdlessText(from string) string {
	return "the " + from + " sent a response without a usable id (id null or missing), which matches no request: " +
		"recorded and skipped, the session goes on. JSON-RPC allows id null only for an error the " + from + " could not tie to a request, such as a parse error"
}

// RecordDuplicate records in rec a request that reused the id of one
// still pending, as the client engine and the proxy both do: a span of
// its own (sp, as the observer built it: session, direction, method, id,
// params, link), marked Duplicate, received and ended at once at at with
// text as its error. It returns the span's id.
func RecordDuplicate(rec *recorder.Recording, sp recorder.Span, at time.Duration, text string) recorder.SpanID {
	sp.Duplicate = true
	sp.Received = at
	id := rec.Begin(sp)
	rec.End(id, at, recorder.Outcome{Status: recorder.StatusError, Error: text})
	return id
}
