package recorder

// Journal appends a live recording's finished spans and events to a file.
type Journal struct{}

// OpenJournal starts journaling rec to path.
func OpenJournal(path string, rec *Recording) (*Journal, error) { return &Journal{}, nil }

// SpanFinished implements [Observer].
func (j *Journal) SpanFinished(s *Span) {}

// EventAdded implements [Observer].
func (j *Journal) EventAdded(e Event) {}

// Path returns the journal's file name.
func (j *Journal) Path() string { return "" }

// Close writes what is left and closes the file.
func (j *Journal) Close() error { return nil }

// DefaultJournalDir returns the folder journals go to by default.
func DefaultJournalDir() string { return "" }
