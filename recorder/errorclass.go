package recorder

import (
	"fmt"
	"strings"
)

// ErrorClass names the way an answer failed, in the words of the MCP
// specification: the JSON-RPC error codes it defines ([ClassOf]), a tool
// result with isError set, or a request that got no answer. The zero
// value, "", is an answer that did not fail.
type ErrorClass string

// The classes of failed answers.
const (
	ClassParse              ErrorClass = "parse error"         // -32700
	ClassInvalidRequest     ErrorClass = "invalid request"     // -32600
	ClassMethodNotFound     ErrorClass = "method not found"    // -32601
	ClassInvalidParams      ErrorClass = "invalid params"      // -32602
	ClassUnknownTool        ErrorClass = "unknown tool"        // -32602 on tools/call naming a tool the server lacks
	ClassInternal           ErrorClass = "internal error"      // -32603
	ClassResourceNotFound   ErrorClass = "resource not found"  // -32002, or -32602 on resources/read saying so
	ClassHeaderMismatch     ErrorClass = "header mismatch"     // -32020 (2026-07-28)
	ClassMissingCapability  ErrorClass = "missing capability"  // -32021 (2026-07-28)
	ClassUnsupportedVersion ErrorClass = "unsupported version" // -32022 (2026-07-28)
	ClassServerError        ErrorClass = "server error"        // any other JSON-RPC error code
	ClassToolError          ErrorClass = "tool error"          // a tools/call result with isError set
	ClassTimeout            ErrorClass = "timeout"             // no answer in time
	ClassCancelled          ErrorClass = "cancelled"           // cancelled before an answer
	ClassAborted            ErrorClass = "aborted"             // the connection was lost first
	ClassFailed             ErrorClass = "failed"              // any other failure, on the client's side
)

// ClassOf returns how the ended span s failed, or "" when it did not (or
// has not ended). A -32602 error on tools/call whose message says the tool
// is unknown or not found is [ClassUnknownTool], not invalid arguments;
// on resources/read, a message saying the resource was not found is
// [ClassResourceNotFound] (the Go SDK answers so with -32602). A tool
// result with isError whose text reports a JSON-RPC error ("MCP error
// -32602: Tool x not found", as TypeScript SDK 1.x servers answer) is
// classed by that error ([ErrorCodeOf]).
func ClassOf(s *Span) ErrorClass {
	kind, code := errorKindOf(s)
	switch kind {
	case "jsonrpc":
		return classOfCode(code, s.Method, s.Error)
	case "tool":
		if code := reportedCode(s.Error); code != 0 {
			return classOfCode(code, s.Method, s.Error) // a JSON-RPC error the server's SDK turned into a result
		}
		return ClassToolError
	case "error":
		return ClassFailed
	case "timeout":
		return ClassTimeout
	case "cancelled":
		return ClassCancelled
	case "aborted":
		return ClassAborted
	}
	return ""
}

// ErrorCodeOf returns the JSON-RPC error code the ended span s failed
// with: the answer's, or the one the text of a tool result with isError
// reports ("MCP error -32602: Tool x not found", as TypeScript SDK 1.x
// servers answer a call of a tool they lack); 0 for none.
func ErrorCodeOf(s *Span) int64 {
	if s.ErrorCode != 0 {
		return s.ErrorCode
	}
	if kind, _ := errorKindOf(s); kind == "tool" {
		return reportedCode(s.Error)
	}
	return 0
}

// reportedCode is the code in an error text of the form "MCP error
// -32602: …", or 0.
func reportedCode(text string) int64 {
	const mark = "MCP error -"
	i := strings.Index(text, mark)
	if i < 0 {
		return 0
	}
	rest := text[i+len(mark):]
	n, digits := int64(0), 0
	for ; digits < len(rest) && digits < 6 && rest[digits] >= '0' && rest[digits] <= '9'; digits++ {
		n = n*10 + int64(rest[digits]-'0')
	}
	if digits == 0 || digits == len(rest) || rest[digits] != ':' {
		return 0
	}
	return -n
}

// classOfCode is the class of JSON-RPC error code answering method with
// message.
func classOfCode(code int64, method, message string) ErrorClass {
	msg := strings.ToLower(message)
	switch code {
	case -32700:
		return ClassParse
	case -32600:
		return ClassInvalidRequest
	case -32601:
		return ClassMethodNotFound
	case -32602:
		switch {
		case method == "tools/call" && (strings.Contains(msg, "unknown tool") || strings.Contains(msg, "tool") && strings.Contains(msg, "not found")):
			return ClassUnknownTool
		case method == "resources/read" && strings.Contains(msg, "not found"):
			return ClassResourceNotFound
		}
		return ClassInvalidParams
	case -32603:
		return ClassInternal
	case -32002:
		return ClassResourceNotFound
	case -32020:
		return ClassHeaderMismatch
	case -32021:
		return ClassMissingCapability
	case -32022:
		return ClassUnsupportedVersion
	}
	return ClassServerError
}

// RequiredHTTPStatus is the HTTP status protocol 2026-07-28 requires a
// streamable HTTP server to answer a JSON-RPC error with code with: 404
// for -32601 (method not found), 400 for -32602 (invalid params, an
// unknown tool), -32020, -32021 and -32022; 0 for the others, which keep
// 200.
func RequiredHTTPStatus(code int64) int {
	switch code {
	case -32601:
		return 404
	case -32602, -32020, -32021, -32022:
		return 400
	}
	return 0
}

// classText is c with its code, "invalid params -32602", or c alone
// without one.
func classText(c ErrorClass, code int64) string {
	if code == 0 {
		return string(c)
	}
	return fmt.Sprintf("%s %d", c, code)
}

// HTTPStatus returns the HTTP status of the POST that carried the
// request a failed response answers, read from the recording's HTTP
// exchanges (snap.HTTP), or 0 when it is not known: a session over
// stdio, an exchange not kept, a line that is not a failed response.
func (m *Message) HTTPStatus(snap *Snapshot) int {
	if m.Type != MessageResponse || snap == nil || snap.HTTP == nil || ClassOf(m.Span) == "" {
		return 0
	}
	want := wireKey{m.Span.Direction, m.Span.RequestID}
	for _, x := range snap.HTTP.Exchanges {
		if x.RPC != m.Span.Method {
			continue // quicker than reading its body
		}
		if posted, ok := postedRequest(x); ok && posted.key == want && posted.names(m.Span) {
			return x.Status
		}
	}
	return 0
}

// StatusText says which HTTP status a failed response came with, and
// whether that is the status protocol 2026-07-28 requires for its error
// ([RequiredHTTPStatus]): "HTTP 400", "HTTP 200, 2026-07-28 requires
// 400"; "" when the status is not known.
func (m *Message) StatusText(snap *Snapshot) string {
	st := m.HTTPStatus(snap)
	if st == 0 {
		return ""
	}
	if want := RequiredHTTPStatus(ErrorCodeOf(m.Span)); want != 0 && want != st && snap.Meta.Protocol >= "2026-07-28" {
		return fmt.Sprintf("HTTP %d, 2026-07-28 requires %d", st, want)
	}
	return fmt.Sprintf("HTTP %d", st)
}
