package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/fanout-inspector/inspector/recorder"
)

// Shape is what a tools/call result says about the call's progress.
type Shape struct {
	// ResultType is "input_required" for a round that asks for input.
	ResultType string
	// Keys are the keys of its inputRequests in the order the server
	// wrote them, and Methods their methods, in the same order.
	Keys    []string
	Methods []string
	// RequestState is the state the retry must carry back.
	RequestState string
	// IsError: the tool reported an error; Texts are the result's text
	// content blocks.
	IsError bool
	Texts   []string
}

// InputRequired reports whether the round asks for input.
func (s Shape) InputRequired() bool { return s.ResultType == "input_required" }

// ErrorText is the text of a result with isError set.
func (s Shape) ErrorText() string { return ToolErrorText(s.Texts) }

// ToolErrorText is the error text of a tool result with isError set
// whose text blocks are texts.
func ToolErrorText(texts []string) string {
	if len(texts) == 0 {
		return "the tool reported an error (isError) without text"
	}
	return strings.Join(texts, "\n")
}

// MayAskInput reports whether result may be an input_required result,
// whose shape a round must read: false only when it cannot say
// "input_required" (a JSON string spelling it with \u escapes is caught
// too).
func MayAskInput(result []byte) bool {
	return bytes.Contains(result, []byte("input_required")) || bytes.Contains(result, []byte(`\u`))
}

// ReadShape walks a tools/call result's JSON. A Go map would forget the
// order inputRequests' keys were written in; reading the tokens keeps
// it. A result it cannot read gives what it read so far.
func ReadShape(raw json.RawMessage) Shape {
	var shape Shape
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return shape
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return shape
		}
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			return shape
		}
		switch t {
		case "resultType":
			_ = json.Unmarshal(value, &shape.ResultType)
		case "requestState":
			_ = json.Unmarshal(value, &shape.RequestState)
		case "isError":
			_ = json.Unmarshal(value, &shape.IsError)
		case "inputRequests":
			shape.Keys, shape.Methods = inputRequests(value)
		case "content":
			var blocks []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if json.Unmarshal(value, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "text" && b.Text != "" {
						shape.Texts = append(shape.Texts, b.Text)
					}
				}
			}
		}
	}
	return shape
}

// inputRequests returns the keys of a JSON object of input requests in
// the order written, and the method of each.
func inputRequests(raw json.RawMessage) (keys, methods []string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys, methods
		}
		k, _ := t.(string)
		var r struct {
			Method string `json:"method"`
		}
		if dec.Decode(&r) != nil {
			return keys, methods
		}
		keys, methods = append(keys, k), append(methods, r.Method)
	}
	return keys, methods
}

// Answer is what a peer answered one round of a tool call.
type Answer struct {
	recorder.Outcome
	// Round is the round's outcome: input required, a result or an error.
	Round recorder.RoundOutcome
	Shape Shape
}

// ReadAnswer reads the answer to a tools/call round: result, or the
// JSON-RPC error's code and text.
func ReadAnswer(result json.RawMessage, errCode int64, errText string, isErr bool) Answer {
	if isErr {
		return Answer{Round: recorder.OutcomeError, Outcome: recorder.Outcome{Status: recorder.StatusError, Error: errText, Code: errCode}}
	}
	a := Answer{Round: recorder.OutcomeResult, Outcome: recorder.Outcome{Status: recorder.StatusOK, Result: recorder.CapPayload(result)}}
	a.Shape = ReadShape(result)
	switch {
	case a.Shape.InputRequired():
		a.Round = recorder.OutcomeInputRequired
	case a.Shape.IsError:
		a.Status, a.Error = recorder.StatusError, a.Shape.ErrorText()
	}
	return a
}
