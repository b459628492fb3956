package archive

import (
	"errors"
	"fmt"
)

// ErrCorrupt marks every error caused by a malformed archive file (bad JSON,
// a truncated zstd frame, unsorted or overlapping intervals, offsets outside
// the blob stream, a body whose hash does not match). Check it with
// errors.Is; a missing file is not corruption and wraps fs.ErrNotExist.
var ErrCorrupt = errors.New("archive: corrupt")

// corruption carries the message of a corruption error and marks it with
// ErrCorrupt, so the text reads naturally while errors.Is still works.
type corruption struct{ err error }

func (c *corruption) Error() string        { return c.err.Error() }
func (c *corruption) Unwrap() error        { return c.err }
func (c *corruption) Is(target error) bool { return target == ErrCorrupt }

// corruptf formats a corruption error; %w verbs wrap as in fmt.Errorf.
func corruptf(format string, args ...any) error {
	return &corruption{fmt.Errorf(format, args...)}
}
