package monitoreval

import (
	"strings"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/monitor"
)

// weekly builds the real weekly instance from an archive: instant j is the
// transition into week j (1..weeks−1), and a page changed at j when its body
// hash differs from week j−1's. List pages (paginated, newest first) keep
// their items until Z newer ones push them off: Change-window-Append with
// Z = 10 on the home page (10 latest news) and 20 on the news, events, topic
// and author lists; every other page is an article, Overwrite (§2.3).
func weekly(a *archive.Archive) *instance {
	in := &instance{name: "real weekly: " + a.Name(), n: a.Weeks() - 1}
	for _, u := range a.URLs() {
		ivs := a.Intervals(u)
		var changes []int
		for i := 1; i < len(ivs); i++ {
			if ivs[i].First == ivs[i-1].Last+1 && ivs[i].Hash != ivs[i-1].Hash {
				changes = append(changes, ivs[i].First)
			}
		}
		if len(changes) == 0 {
			continue
		}
		in.pages = append(in.pages, page{url: u, life: lifeOf(u), changes: changes})
	}
	return in
}

func lifeOf(u string) monitor.Life {
	switch {
	case u == "/":
		return monitor.Life{Kind: monitor.ChangeWindowAppend, Window: 10}
	case u == "/news/", u == "/events/", strings.HasPrefix(u, "/news/page/"),
		strings.HasPrefix(u, "/topics/"), strings.HasPrefix(u, "/authors/"):
		return monitor.Life{Kind: monitor.ChangeWindowAppend, Window: 20}
	}
	return monitor.Life{Kind: monitor.Overwrite}
}
