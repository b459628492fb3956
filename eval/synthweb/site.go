package synthweb

import (
	"math/rand/v2"
	"slices"
	"strconv"
)

// Host names. Sites are siteN.synth.test; the adversarial hosts are trap*.
// .test is reserved (RFC 2606), so no crawler can reach a real host by
// following these names.
const (
	hostSuffix         = ".synth.test"
	trapHost           = "trap" + hostSuffix
	trapHugeRobotsHost = "trap-robots-huge" + hostSuffix
	trapErrRobotsHost  = "trap-robots-error" + hostSuffix
)

// sectionNames are the section hubs a site may have (Config.Sections picks
// the first n).
var sectionNames = [...]string{
	"world", "business", "science", "technology", "health", "sports",
	"culture", "travel", "food", "opinion", "local", "environment",
}

var siteSuffixes = [...]string{
	"Ledger", "Gazette", "Journal", "Courier", "Review", "Herald",
	"Chronicle", "Post", "Dispatch", "Monitor", "Observer", "Tribune",
}

// topicsPerSite is how many topic words a site has; each article carries
// tagsPerArticle of them as tags.
const (
	topicsPerSite  = 16
	tagsPerArticle = 3
	peerLinks      = 2
)

// site holds what never changes about one site.
type site struct {
	index  int
	host   string // siteN.synth.test
	name   string
	topics []int // word ids, topicsPerSite distinct
	atom   bool  // Atom feed (odd sites) rather than RSS (even)
	peers  []int // sites linked from the footer
}

func newSite(w *Web, i int) *site {
	r := newRand(uint64(w.opts.Seed), tagSite, uint64(i))
	s := &site{
		index: i,
		host:  "site" + strconv.Itoa(i) + hostSuffix,
		atom:  i%2 == 1,
	}
	for len(s.topics) < topicsPerSite {
		id := w.vocab.topic(r)
		if !slices.Contains(s.topics, id) {
			s.topics = append(s.topics, id)
		}
	}
	s.name = "The " + titleString(s.topics[:1]) + " " + siteSuffixes[r.IntN(len(siteSuffixes))]
	// The next site and one more at random: every site is reachable from
	// any other by following footers.
	n := w.opts.Sites
	for try := 0; try < 8 && len(s.peers) < min(peerLinks, n-1); try++ {
		p := (i + 1) % n
		if try > 0 {
			p = r.IntN(n)
		}
		if p != i && !slices.Contains(s.peers, p) {
			s.peers = append(s.peers, p)
		}
	}
	return s
}

// feedPath is the site's feed: RSS on even sites, Atom on odd ones, so a
// crawler meets both.
func (s *site) feedPath() string {
	if s.atom {
		return "/atom.xml"
	}
	return "/feed.xml"
}

func (s *site) feedType() string {
	if s.atom {
		return "application/atom+xml"
	}
	return "application/rss+xml"
}

// pickTags returns k distinct topics of s.
func (s *site) pickTags(r *rand.Rand, k int) []int {
	perm := r.Perm(len(s.topics))
	tags := make([]int, k)
	for i := range k {
		tags[i] = s.topics[perm[i]]
	}
	return tags
}
