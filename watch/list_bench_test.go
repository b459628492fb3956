package watch

import (
	"fmt"
	"testing"
	"time"

	"github.com/deltaq/deltaq/notify"
)

// BenchmarkList lists one user's sentinels, and every user's, among
// 20,000 sentinels of 1,000 users on 20 pages: what GET /api/v1/watches
// and every install through the API (which counts the user's sentinels
// against the key's limit) read.
//
//	go test ./watch -run '^$' -bench List -benchtime 20x
func BenchmarkList(b *testing.B) {
	db := openRepo(b)
	ob := notify.NewOutbox(db, notifyConfig())
	s := newSite(b)
	var urls []string
	for p := range 20 {
		urls = append(urls, s.set(fmt.Sprintf("/p%d", p), fmt.Sprintf("<html><body><p>page %d</p></body></html>", p)))
	}
	e := newEngine(b, db, ob, &fakeClock{}, Options{})
	const users, each = 1000, 20
	for i := range users * each {
		spec := Spec{User: fmt.Sprintf("user-%d", i%users), URL: urls[i%len(urls)], Type: Words, Every: time.Hour}
		if _, err := e.Install(b.Context(), spec); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct{ name, user string }{{"one-user", "user-7"}, {"all", ""}} {
		b.Run(c.name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				ss, err := e.List(b.Context(), c.user)
				if err != nil {
					b.Fatal(err)
				}
				n = len(ss)
			}
			want := each
			if c.user == "" {
				want = users * each
			}
			if n != want {
				b.Fatalf("listed %d sentinels, want %d", n, want)
			}
		})
	}
}
