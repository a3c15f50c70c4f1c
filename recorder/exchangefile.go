package recorder

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// saveHTTP writes a recording's HTTP exchanges, one a line:
//
//	,"http":{"total":N,"exchanges":[
//	{…},
//	{…}
//	]}
//
// nothing when it has none. Older readers ignore the field.
func saveHTTP(bw *bufio.Writer, enc *lineEncoder, log *HTTPLog) error {
	if log == nil || log.Total == 0 {
		return nil
	}
	bw.WriteString(",\n\"http\":{\"total\":" + strconv.Itoa(log.Total) + ",\"exchanges\":[")
	for i, x := range log.Exchanges {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
		if err := enc.encode(x); err != nil {
			return fmt.Errorf("save recording: HTTP exchange %d: %w", x.ID, err)
		}
	}
	bw.WriteString("\n]}")
	return nil
}

// checkHTTP says what is wrong with the HTTP exchanges read from a file,
// or nil.
func checkHTTP(log *HTTPLog) error {
	if log == nil {
		return nil
	}
	if log.Total < len(log.Exchanges) {
		return fmt.Errorf(`"http" says %d exchanges were made but holds %d: the file was edited or is damaged`, log.Total, len(log.Exchanges))
	}
	var last ExchangeID
	for i, x := range log.Exchanges {
		if x == nil {
			return fmt.Errorf("http.exchanges[%d] is null: the file was edited or is damaged", i)
		}
		if x.ID <= last {
			return fmt.Errorf("http.exchanges[%d] has id %d after id %d (want increasing ids from 1): the file was edited or is damaged", i, x.ID, last)
		}
		last = x.ID
		if x.Method == "" {
			return fmt.Errorf("http.exchanges[%d] has no method: the file was edited or is damaged", i)
		}
		if err := checkOffset(fmt.Sprintf("http.exchanges[%d].sent", i), x.Sent); err != nil {
			return err
		}
		for j, at := range []time.Duration{x.Responded, x.Ended} {
			if at == Unset {
				continue
			}
			if err := checkOffset(fmt.Sprintf("http.exchanges[%d].%s", i, [...]string{"responded", "ended"}[j]), at); err != nil {
				return err
			}
		}
		for j, e := range x.Events {
			if err := checkOffset(fmt.Sprintf("http.exchanges[%d].events[%d].at", i, j), e.At); err != nil {
				return err
			}
		}
	}
	if int(last) > log.Total {
		return errors.New(`"http" holds an exchange whose id is above its total: the file was edited or is damaged`)
	}
	return nil
}
