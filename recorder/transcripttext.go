package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// summaryWidth is about how many characters a [Message.Summary] takes
// at most.
const summaryWidth = 100

// Summary returns what the message says, on one line: a request's tool,
// resource or prompt name and its arguments; a response's result, or its
// error; a notification's text; the line of a stderr, protocol or
// connection event. It is cut to about a hundred characters.
func (m *Message) Summary() string {
	var text string
	switch m.Type {
	case MessageRequest, MessageCall:
		text = requestSummary(m.Span)
		if m.Type == MessageCall {
			text = "call of several rounds: " + text
		}
		if m.Span.Kind == KindRound {
			text = fmt.Sprintf("round %d: %s", m.Span.Round, text)
		}
	case MessageResponse:
		text = responseSummary(m.Span)
	case MessageInput:
		text = fmt.Sprintf("input request %s of round %d: %s", m.Span.InputKey, m.Span.Round, requestSummary(m.Span))
		if m.Span.Status != StatusOK {
			text += " → " + m.Span.Status.String()
			if m.Span.Error != "" {
				text += ": " + m.Span.Error
			}
		}
	case MessageUnanswered:
		text = "no answer: " + m.Span.Status.String()
		if m.Span.Error != "" {
			text += ": " + m.Span.Error
		}
	default:
		text = m.Event.Text
		if text == "" {
			text = compactParams(m.Event.Data)
		}
	}
	return cutLine(text, summaryWidth)
}

// Line returns the message as one line of text, as `inspector report
// --transcript` prints it: its time from the recording's start, who wrote
// it (→ the client, ← the server), its id, method, summary and error class,
// indented by its depth.
func (m *Message) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%7.3fs %s ", m.At.Seconds(), m.Arrow())
	b.WriteString(strings.Repeat("  ", int(m.Depth)))
	// the id, the method and the summary are as the server wrote them:
	// without their control characters
	if id := m.ID(); id != "" {
		b.WriteString("#" + PlainLine(id) + " ")
	}
	switch m.Type {
	case MessageStderr, MessageConnection, MessageProtocolError:
		b.WriteString(strings.ReplaceAll(m.Type.String(), "_", " "))
	default:
		b.WriteString(PlainLine(m.Method()))
	}
	if m.Type == MessageResponse {
		b.WriteString(" answered")
	}
	if s := m.Summary(); s != "" {
		b.WriteString("  " + s)
	}
	if c := m.Class(); c != "" {
		b.WriteString("  [" + m.ClassText() + "]")
	}
	return b.String()
}

// Arrow shows who wrote the message: "→" the client, "←" the server,
// "·" for a line that is not a message.
func (m *Message) Arrow() string {
	switch m.Direction {
	case Outgoing:
		return "→"
	case Incoming:
		return "←"
	}
	return "·"
}

// ClassText is the error class with its JSON-RPC code, "invalid params
// -32602", or "" for a line that did not fail.
func (m *Message) ClassText() string {
	c := m.Class()
	if c == "" {
		return ""
	}
	code := int64(0)
	if m.Span != nil {
		code = ErrorCodeOf(m.Span)
	}
	return classText(c, code)
}

// JSON returns the message as it went over the wire, rebuilt from the
// recording: jsonrpc, id, method and params of a request; id and result
// or error of a response; method and params of a notification. Params
// and results are as recorded (capped at [MaxPayload]); the inspector's
// own keys in _meta were already left out when they were recorded. Lines
// that are not messages give their event as JSON.
func (m *Message) JSON() json.RawMessage {
	var v any
	switch m.Type {
	case MessageRequest, MessageCall, MessageInput:
		v = struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id,omitempty"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params,omitempty"`
		}{"2.0", rawID(m.Span.RequestID), m.Span.Method, m.Span.Params}
	case MessageResponse:
		type rpcError struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		}
		r := struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id,omitempty"`
			Result  json.RawMessage `json:"result,omitempty"`
			Error   *rpcError       `json:"error,omitempty"`
		}{JSONRPC: "2.0", ID: rawID(m.Span.RequestID), Result: m.Span.Result}
		if m.Span.ErrorCode != 0 {
			r.Error = &rpcError{m.Span.ErrorCode, m.Span.Error}
		} else if len(r.Result) == 0 {
			r.Result = json.RawMessage("{}")
		}
		v = r
	case MessageNotification:
		v = struct {
			JSONRPC string          `json:"jsonrpc"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params,omitempty"`
		}{"2.0", m.Event.Method, m.Event.Data}
	case MessageUnanswered:
		v = struct {
			Status string `json:"status"`
			Error  string `json:"error,omitempty"`
		}{m.Span.Status.String(), m.Span.Error}
	default:
		v = m.Event
	}
	b, err := json.Marshal(v)
	if err != nil {
		// params or a result that is not JSON (a damaged file)
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return b
}

// rawID is the JSON of an id as a span carries it, or nil for none.
func rawID(id string) json.RawMessage {
	if id == "" || !json.Valid([]byte(id)) {
		return nil
	}
	return json.RawMessage(id)
}

// requestSummary is a request's name (tool, resource, prompt) and its
// arguments, or its params without _meta.
func requestSummary(s *Span) string {
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if s.Name != "" {
		_ = json.Unmarshal(s.Params, &p)
		if args := compactParams(p.Arguments); args != "" {
			return s.Name + " " + args
		}
		return s.Name
	}
	return compactParams(s.Params)
}

// responseSummary is what the answer to s said: its error, the text of a
// tool result, a round's outcome, or its result without _meta.
func responseSummary(s *Span) string {
	if s.ErrorCode != 0 || len(s.Result) == 0 {
		if s.Error != "" {
			return s.Error
		}
		return s.Status.String()
	}
	if s.Kind == KindRound && s.Outcome == OutcomeInputRequired {
		return fmt.Sprintf("input_required: %d input requests", s.InputRequests)
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if (s.Kind == KindTool || s.Kind == KindRound) && json.Unmarshal(s.Result, &r) == nil {
		var texts []string
		for _, c := range r.Content {
			if c.Type == "text" {
				texts = append(texts, c.Text)
			} else {
				texts = append(texts, "("+c.Type+")")
			}
		}
		if len(texts) > 0 {
			return strings.Join(texts, " ")
		}
	}
	return compactParams(s.Result)
}

// compactParams is a JSON object on one line without its _meta, or the
// JSON as it is when it is not an object; "" for nothing or {}.
func compactParams(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		delete(obj, "_meta")
		if len(obj) == 0 {
			return ""
		}
		if b, err := json.Marshal(obj); err == nil {
			return string(b)
		}
	}
	var out bytes.Buffer
	if json.Compact(&out, raw) == nil {
		return out.String()
	}
	return string(raw)
}

// PlainLine returns text a server wrote (a stderr line, a message) as
// one line that is safe to show: line breaks and tabs become spaces, and
// the other control characters, with which a terminal's escape sequences
// start, are shown as U+FFFD, so that they can neither move the cursor
// nor recolour what follows.
func PlainLine(s string) string {
	s = strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s))
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// cutLine is s on one line without control characters ([PlainLine]),
// cut to about n characters with "…".
func cutLine(s string, n int) string {
	s = PlainLine(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
