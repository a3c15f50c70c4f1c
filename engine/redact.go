package engine

// redactedError is an error whose text had the session's secrets taken
// out; errors.Is and errors.As still see the error underneath.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// redact returns err with the session's secrets and the credentials of
// any URL in its text replaced (see [recorder.Recording.Scrub]): net/http
// quotes the whole URL, query included, in its errors, and a stdio
// server's last stderr line may print its environment.
func (s *Session) redact(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	clean := s.rec.Scrub(text)
	if clean == text {
		return err
	}
	return &redactedError{text: clean, err: err}
}
