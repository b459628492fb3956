package crawler

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// HostStats is what the repository knows of one host: its pages by state,
// the outcome of their last fetch, its queue, robots.txt and back-off.
type HostStats struct {
	Host          string
	Pages         int            // URLs known
	ByState       map[string]int // pages by repo.PageState
	ByOutcome     map[string]int // pages tried, by the outcome of their last attempt
	Fetches       int            // fetch attempts over all pages
	Queued        int            // queue entries
	LastFetch     time.Time
	RobotsStatus  int // HTTP status of the last robots.txt fetch; 0 = none or unreachable
	RobotsFetched time.Time
	// RobotsDeferredUntil is when a host whose robots.txt answered 5xx or
	// was unreachable may be tried again (crawler.robots.error_defer); zero
	// if robots.txt gave rules. It is kept apart from BackoffUntil, which
	// only a page's 429/503 sets.
	RobotsDeferredUntil time.Time
	BackoffUntil        time.Time
	// RobotsUnreachableSince is when a refresh of robots.txt first found
	// it unreachable while the rules fetched at RobotsFetched stay in use
	// (crawler.robots.stale_for); zero otherwise.
	RobotsUnreachableSince time.Time
}

// StaleRobots says that h's cached rules are in use while its robots.txt
// is unreachable, and since when, or "" if they are not.
func (h HostStats) StaleRobots() string {
	if h.RobotsUnreachableSince.IsZero() {
		return ""
	}
	return staleRules(h.RobotsFetched, h.RobotsUnreachableSince)
}

// robotsDeferredUntil is when a host whose robots.txt answered 5xx or was
// unreachable may be tried again, as hostCache.fromState defers it; zero
// if robots.txt gave rules or was never fetched.
func robotsDeferredUntil(st *repo.HostState) time.Time {
	if st.RobotsFetched.IsZero() || robotsKnown(st.RobotsStatus) {
		return time.Time{}
	}
	return st.RobotsExpires
}

// HostWait is until when a host's record holds back its URLs whatever
// they are due, and why: "robots.txt" (a failed robots.txt defers the
// host) or "back-off" (it answered 429 or 503); zero when it holds
// nothing back.
func HostWait(st repo.HostState) (until time.Time, why string) {
	if t := robotsDeferredUntil(&st); !t.IsZero() {
		until, why = t, "robots.txt"
	}
	if st.BackoffUntil.After(until) {
		until, why = st.BackoffUntil, "back-off"
	}
	return until, why
}

// Hosts gathers the statistics of every host in the repository, sorted by
// host. It scans the pages, the host records and the queue once each and
// holds one HostStats per host.
func Hosts(ctx context.Context, db *repo.DB) ([]HostStats, error) {
	m := map[string]*HostStats{}
	get := func(host string) *HostStats {
		h, ok := m[host]
		if !ok {
			h = &HostStats{Host: host, ByState: map[string]int{}, ByOutcome: map[string]int{}}
			m[host] = h
		}
		return h
	}
	for p, err := range db.Pages(ctx) {
		if err != nil {
			return nil, fmt.Errorf("crawler: host statistics: %w", err)
		}
		h := get(urlnorm.Host(p.URL))
		h.Pages++
		h.ByState[p.State.String()]++
		h.Fetches += p.Fetches
		if p.Attempted() {
			h.ByOutcome[p.LastOutcome.String()]++
		}
		if p.LastFetch.After(h.LastFetch) {
			h.LastFetch = p.LastFetch
		}
	}
	for st, err := range db.Hosts(ctx) {
		if err != nil {
			return nil, fmt.Errorf("crawler: host statistics: %w", err)
		}
		h := get(st.Host)
		h.RobotsStatus, h.RobotsFetched, h.BackoffUntil = st.RobotsStatus, st.RobotsFetched, st.BackoffUntil
		h.RobotsDeferredUntil, h.RobotsUnreachableSince = robotsDeferredUntil(&st), st.RobotsUnreachableSince
	}
	for item, err := range db.AllQueued(ctx) {
		if err != nil {
			return nil, fmt.Errorf("crawler: host statistics: %w", err)
		}
		get(urlnorm.Host(item.URL)).Queued++
	}
	out := make([]HostStats, 0, len(m))
	for _, h := range m {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out, nil
}
