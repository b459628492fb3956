package crawler

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/deltaq/deltaq/internal/urlnorm"
	"github.com/deltaq/deltaq/repo"
)

// scopeKey names the metadata record that keeps the seed hosts across
// restarts, so a resumed crawl keeps its scope.
const scopeKey = "crawler.seed_hosts"

// scope decides which URLs a crawl admits: the hosts (crawler.scope),
// then the URL rules (crawler.include, crawler.exclude).
type scope struct {
	all              bool
	include, exclude []*regexp.Regexp
	mu               struct {
		sync.RWMutex
		hosts map[string]bool
	}
}

func loadScope(db *repo.DB, cfg Config) (*scope, error) {
	s := &scope{all: cfg.Scope == ScopeAll}
	s.mu.hosts = map[string]bool{}
	for _, r := range cfg.Include {
		s.include = append(s.include, regexp.MustCompile(r)) // Config.Validate compiled it
	}
	for _, r := range cfg.Exclude {
		s.exclude = append(s.exclude, regexp.MustCompile(r))
	}
	v, err := db.Meta(scopeKey)
	if errors.Is(err, repo.ErrNotFound) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("crawler: load scope: %w", err)
	}
	for _, h := range strings.Split(string(v), "\n") {
		if h != "" {
			s.mu.hosts[h] = true
		}
	}
	return s, nil
}

// allows reports whether u (normalized) is on a host in scope.
func (s *scope) allows(u string) bool {
	if s.all {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.mu.hosts[urlnorm.Host(u)]
}

// ruledOut reports whether the URL rules keep u out: it matches an
// exclude rule, or there are include rules and it matches none.
func (s *scope) ruledOut(u string) bool {
	if s.excluded(u) {
		return true
	}
	if len(s.include) == 0 {
		return false
	}
	for _, r := range s.include {
		if r.MatchString(u) {
			return false
		}
	}
	return true
}

// excluded reports whether u matches an exclude rule.
func (s *scope) excluded(u string) bool {
	for _, r := range s.exclude {
		if r.MatchString(u) {
			return true
		}
	}
	return false
}

// addSeeds records the hosts of seeds in b; publish makes them effective
// after the batch commits.
func (s *scope) addSeeds(b *repo.Batch, seeds []string) error {
	s.mu.RLock()
	hosts := make([]string, 0, len(s.mu.hosts)+len(seeds))
	for h := range s.mu.hosts {
		hosts = append(hosts, h)
	}
	s.mu.RUnlock()
	for _, u := range seeds {
		hosts = append(hosts, urlnorm.Host(u))
	}
	sort.Strings(hosts)
	return b.PutMeta(scopeKey, []byte(strings.Join(hosts, "\n")))
}

func (s *scope) publish(seeds []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range seeds {
		s.mu.hosts[urlnorm.Host(u)] = true
	}
}
