package index

import (
	"os"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// asyncErrors is the name under which Bleve reports to this package the
// errors of its background work (scorchConfig).
const asyncErrors = "deltaq-index"

// persistFailures holds, by index store path, the last error of Bleve's
// background work and when it came. A batch's persisted callback never
// runs while Bleve cannot write it (a full disk): Bleve retries without
// end, and a wait for the callback alone would wait for ever.
var persistFailures = struct {
	sync.Mutex
	byPath map[string]persistFailure
}{byPath: map[string]persistFailure{}}

type persistFailure struct {
	err error
	at  time.Time
}

func init() {
	scorch.RegistryAsyncErrorCallbacks[asyncErrors] = func(err error, path string) {
		persistFailures.Lock()
		persistFailures.byPath[path] = persistFailure{err: err, at: time.Now()}
		persistFailures.Unlock()
	}
}

// failedSince returns the error of bi's background work reported after
// since, nil if none was.
func failedSince(bi bleve.Index, since time.Time) error {
	// Bleve keeps an index's store under its path (indexStorePath).
	prefix := bi.Name() + string(os.PathSeparator)
	persistFailures.Lock()
	defer persistFailures.Unlock()
	for path, f := range persistFailures.byPath {
		if strings.HasPrefix(path, prefix) && f.at.After(since) {
			return f.err
		}
	}
	return nil
}
