package recorder

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

// spanJSON is a [Span] with its fields in the order the recording format
// gives them (see docs/recording-format.md), which is not the order that
// packs a Span into 256 bytes. TestSpanJSONFields keeps the two in step.
type spanJSON struct {
	ID            SpanID          `json:"id"`
	Parent        SpanID          `json:"parent,omitempty"`
	Session       string          `json:"session"`
	Direction     Direction       `json:"direction"`
	Method        string          `json:"method"`
	Kind          Kind            `json:"kind"`
	RequestID     string          `json:"request_id,omitempty"`
	Name          string          `json:"name,omitempty"`
	Round         int32           `json:"round,omitempty"`
	InputKey      string          `json:"input_key,omitempty"`
	Outcome       RoundOutcome    `json:"outcome,omitempty"`
	InputRequests int32           `json:"input_requests,omitempty"`
	Stalled       time.Duration   `json:"stalled,omitempty"`
	Duplicate     bool            `json:"duplicate,omitempty"`
	Unlinked      string          `json:"unlinked,omitempty"`
	Intended      time.Duration   `json:"intended,omitempty"`
	Received      time.Duration   `json:"received"`
	Queued        time.Duration   `json:"queued"`
	Serving       time.Duration   `json:"serving"`
	Answered      time.Duration   `json:"answered"`
	Status        Status          `json:"status"`
	Error         string          `json:"error,omitempty"`
	ErrorCode     int64           `json:"error_code,omitempty"`
	InputTokens   int32           `json:"input_tokens,omitempty"`
	OutputTokens  int32           `json:"output_tokens,omitempty"`
	Params        json.RawMessage `json:"params,omitempty"`
	Result        json.RawMessage `json:"result,omitempty"`
}

// spanEncoders are reused encoders that leave <, > and & as they are:
// the encoder that calls MarshalJSON escapes them if it was asked to, so
// the bytes are those a Span with its fields in format order would give.
var spanEncoders = sync.Pool{New: func() any {
	e := &spanEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

type spanEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// MarshalJSON writes the span with its fields in the order of the
// recording format.
func (s Span) MarshalJSON() ([]byte, error) {
	j := s.formatOrder()
	e := spanEncoders.Get().(*spanEncoder)
	defer spanEncoders.Put(e)
	e.buf.Reset()
	if err := e.enc.Encode(&j); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))), nil
}

// formatOrder returns s with its fields in the format's order.
func (s *Span) formatOrder() spanJSON {
	return spanJSON{
		ID: s.ID, Parent: s.Parent, Session: s.Session, Direction: s.Direction, Method: s.Method, Kind: s.Kind,
		RequestID: s.RequestID, Name: s.Name, Round: s.Round, InputKey: s.InputKey, Outcome: s.Outcome,
		InputRequests: s.InputRequests, Stalled: s.Stalled, Duplicate: s.Duplicate, Unlinked: s.Unlinked,
		Intended: s.Intended, Received: s.Received, Queued: s.Queued, Serving: s.Serving, Answered: s.Answered,
		Status: s.Status, Error: s.Error, ErrorCode: s.ErrorCode, InputTokens: s.InputTokens,
		OutputTokens: s.OutputTokens, Params: s.Params, Result: s.Result,
	}
}

// journalLineJSON is a [journalLine] with its span in format order.
type journalLineJSON struct {
	Span  *spanJSON      `json:"span,omitempty"`
	Event *Event         `json:"event,omitempty"`
	Meta  *Meta          `json:"meta,omitempty"`
	End   *time.Duration `json:"end,omitempty"`
}

// inFormatOrder returns what to encode for v: a span, or a journal line
// with one, as its format-order twin, which encodes once, where
// [Span.MarshalJSON] would be encoded and then checked again by the
// encoder that called it (twice the time of a save).
// It reuses e's scratch values, so that a save allocates nothing a span.
func (e *lineEncoder) inFormatOrder(v any) any {
	switch x := v.(type) {
	case *Span:
		e.span = x.formatOrder()
		return &e.span
	case journalLine:
		if x.Span == nil {
			return x
		}
		e.span = x.Span.formatOrder()
		e.line = journalLineJSON{Span: &e.span, Event: x.Event, Meta: x.Meta, End: x.End}
		return &e.line
	}
	return v
}
