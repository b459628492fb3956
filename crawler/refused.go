package crawler

import (
	"context"
	"errors"
	"maps"
	"net/url"
	"sync"
	"time"

	"github.com/deltaq/deltaq/repo"
)

// maxNotedHosts bounds the hosts a crawl names as refused by the address
// guard, or as unreachable; more are counted, not named.
const maxNotedHosts = 64

// runNotes is what one Run noted of the hosts it asked, for its summary:
// a crawler that runs again (deltaq serve, deltaq run) starts each run
// with new notes, so that no run names another's hosts.
type runNotes struct {
	seq     uint64    // the run's number, stamped on the hosts it asks (hostReach)
	refused hostNotes // the hosts the address guard refused
	stale   hostNotes // the hosts crawled under cached rules, robots.txt unreachable
}

// noteStale notes whether a host's robots.txt state st, just fetched,
// keeps the rules fetched before in use (keepRules), and since when;
// rules fetched again clear the note.
func (n *runNotes) noteStale(st *repo.HostState) {
	if st.RobotsUnreachableSince.IsZero() {
		n.stale.drop(st.Host)
		return
	}
	n.stale.add(st.Host, staleRules(st.RobotsFetched, st.RobotsUnreachableSince))
}

// staleRules says that the rules fetched at fetched are in use while
// robots.txt has been unreachable since since, as the summary and deltaq
// hosts say it.
func staleRules(fetched, since time.Time) string {
	return "rules of " + fetched.UTC().Format(time.DateTime) + " UTC in use, robots.txt unreachable since " + since.UTC().Format(time.DateTime) + " UTC"
}

// hostNotes name, per host, why a crawl could not reach it (the first
// reason seen), so that a crawl that fetched nothing can say why: the
// hosts the address guard refused (and how to allow them). Those that do
// not answer are hostReach's.
type hostNotes struct {
	mu struct {
		sync.Mutex
		hosts map[string]string // host → why, e.g. "127.0.0.1:8080 is a loopback address"
		more  int               // hosts beyond maxNotedHosts
	}
}

// add records why host could not be reached, unless a reason is known.
func (r *hostNotes) add(host, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mu.hosts == nil {
		r.mu.hosts = map[string]string{}
	}
	if _, ok := r.mu.hosts[host]; ok {
		return
	}
	if len(r.mu.hosts) >= maxNotedHosts {
		r.mu.more++
		return
	}
	r.mu.hosts[host] = why
}

// drop forgets host's note, if it is named.
func (r *hostNotes) drop(host string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.mu.hosts, host)
}

// snapshot copies the noted hosts and the count of those not named.
func (r *hostNotes) snapshot() (map[string]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.mu.hosts), r.mu.more
}

// noteReach records whether a fetch from host in the run of notes got a
// whole answer, and if not, why: a connection the address guard refused
// (notes.refused), or one that failed, timed out or was not answered in
// HTTP (c.reach). A fetch cut short by the crawl's stop says nothing of
// the host.
func (c *Crawler) noteReach(ctx context.Context, notes *runNotes, host string, res *response) {
	if ctx.Err() != nil {
		return
	}
	switch res.outcome {
	case repo.OutcomeRefused:
		why := "a non-public address"
		var re *RefusedError
		if errors.As(res.err, &re) {
			why = re.Addr + " is a " + re.Kind + " address"
		}
		notes.refused.add(host, why)
	case repo.OutcomeNetworkError, repo.OutcomeTimeout:
		if res.err == nil {
			c.reach.fail(host, res.outcome.String(), notes.seq)
			return
		}
		// The URL the error names is the host's, which the note is under.
		err := res.err
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		c.reach.fail(host, err.Error(), notes.seq)
	default:
		c.reach.answer(host, notes.seq)
	}
}
