package watch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/deltaq/deltaq/eval/archive"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/replay/replaytest"
	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/killtest"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/notify/notifytest"
	"github.com/deltaq/deltaq/repo"
)

// The crash test's child reads its setting from this variable:
// "dir|replay address|webhook URL|smtp address".
const killEnv = "DELTAQ_WATCH_KILL_CHILD"

var (
	killInstall = time.Date(2023, 3, 6, 12, 0, 0, 0, time.UTC)
	killCheck   = killInstall.Add(7 * 24 * time.Hour)
)

const killWeek = 5 // the archive week the sentinels are installed on

func diskRepo(t testing.TB, dir string) *repo.DB {
	t.Helper()
	db, err := repo.Open(dir, repo.Config{VersionsKept: 2, FetchLogKept: 2, StatsKept: 2, CacheBytes: 4 << 20}, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func replayFetcher(addr string) HTTPFetcher {
	return HTTPFetcher{Client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dialTo(addr)}}, MaxBytes: 4 << 20, MaxRedirects: 5}
}

// killPages are the digitalgov pages watched: some that change from
// killWeek to killWeek+1, and some that do not.
func killPages(t testing.TB, a *archive.Archive) (changed, same []string) {
	changed = a.Changed(killWeek + 1)[:8]
	for _, p := range a.Week(killWeek) {
		if len(same) < 4 && !slices.Contains(a.Changed(killWeek+1), p.URL) && !slices.Contains(a.Deleted(killWeek+1), p.URL) {
			same = append(same, p.URL)
		}
	}
	if len(changed) < 8 || len(same) < 4 {
		t.Fatalf("archive week %d: %d changed and %d unchanged pages", killWeek+1, len(changed), len(same))
	}
	return changed, same
}

// runChecks checks every group, then delivers one notification at a
// time; progress names the count of steps done.
func runChecks(ctx context.Context, db *repo.DB, addr string, ncfg notify.Config, progress func(int)) error {
	ob := notify.NewOutbox(db, ncfg)
	e, err := New(db, testConfig(), ob, Options{Fetcher: replayFetcher(addr), Clock: func() time.Time { return killCheck }})
	if err != nil {
		return err
	}
	defer e.Close()
	gs, err := e.Groups(ctx)
	if err != nil {
		return err
	}
	step := 0
	for _, g := range gs {
		if _, err := e.Check(ctx, g.Key); err != nil {
			return err
		}
		step++
		progress(step)
	}
	svc := notify.NewService(ob, notify.Options{})
	for {
		st, err := svc.Once(ctx)
		if err != nil {
			return err
		}
		if st.Delivered+st.Failed == 0 {
			return nil
		}
		step++
		progress(step)
	}
}

// killChild is the crashing process's part: check and deliver, printing
// each step, then wait to be killed.
func killChild(t *testing.T, v string) {
	var dir, addr, hook, smtpAddr string
	if _, err := fmt.Sscanf(v, "%s %s %s %s", &dir, &addr, &hook, &smtpAddr); err != nil {
		t.Fatal(err)
	}
	db := diskRepo(t, dir)
	ncfg := notifyConfig()
	ncfg.Batch, ncfg.SMTP.Addr = 1, smtpAddr
	err := runChecks(t.Context(), db, addr, ncfg, func(n int) { fmt.Println("step", n) })
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("step", 1<<20)
	select {} // wait for the kill
}

// TestKillBetweenDetectionAndDelivery installs sentinels on real pages,
// advances the replayed archive a week, and kills the checking and
// delivering process with SIGKILL at several points. After a restart
// finishes the work, every notification a crash-free run makes has been
// delivered by webhook and by e-mail, and every repeat carries the same
// idempotency key and the same content.
func TestKillBetweenDetectionAndDelivery(t *testing.T) {
	if v := os.Getenv(killEnv); v != "" {
		killChild(t, v)
		return
	}
	if testing.Short() {
		t.Skip("runs a child process per kill point")
	}
	a, rs := replaytest.Open(t, datasets.Path(t, "archives", "digitalgov-2023"), replay.Options{})
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	changed, same := killPages(t, a)
	host := "http://" + a.Name() + ".test"

	install := func(dir string, hook, email string) {
		t.Helper()
		if err := rs.SetWeek(killWeek); err != nil {
			t.Fatal(err)
		}
		db := diskRepo(t, dir)
		defer db.Close()
		e, err := New(db, testConfig(), nil, Options{Fetcher: replayFetcher(addr), Clock: func() time.Time { return killInstall }})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		targets := []notify.Target{{Kind: notify.Webhook, Addr: hook}, {Kind: notify.Email, Addr: email}, {Kind: notify.Feed}}
		for _, u := range append(append([]string{}, changed...), same...) {
			for _, typ := range []Type{Any, Words} {
				if _, err := e.Install(t.Context(), Spec{URL: host + u, Type: typ, Every: 24 * time.Hour, Notify: targets, User: "ada"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := rs.SetWeek(killWeek + 1); err != nil {
			t.Fatal(err)
		}
	}

	// The crash-free run gives the notifications that must arrive.
	refHook := notifytest.Webhooks(t)
	refMail := notifytest.SMTP(t)
	refDir := t.TempDir()
	install(refDir, refHook.URL, "ada@example.org")
	db := diskRepo(t, refDir)
	ncfg := notifyConfig()
	ncfg.SMTP.Addr = refMail.Addr
	if err := runChecks(t.Context(), db, addr, ncfg, func(int) {}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	want := keys(refHook.Hooks())
	if len(want) < len(changed) {
		t.Fatalf("the crash-free run sent %d notifications for %d changed pages", len(want), len(changed))
	}
	steps := len(changed) + len(same) + 2*len(want) // checks, then webhook and e-mail deliveries

	// Kill points: a step count reached, or (negative) while the receiver
	// holds the answer to its -k-th webhook: delivered but not recorded.
	for _, killAt := range []int{1, len(changed) / 2, len(changed) + len(same), len(changed) + len(same) + 3, steps - 1, -1, -7} {
		t.Run("kill at "+strconv.Itoa(killAt), func(t *testing.T) {
			hook := notifytest.Webhooks(t)
			mail := notifytest.SMTP(t)
			dir := filepath.Join(t.TempDir(), "db")
			install(dir, hook.URL, "ada@example.org")
			child := killtest.Child("TestKillBetweenDetectionAndDelivery", killEnv, fmt.Sprintf("%s %s %s %s", dir, addr, hook.URL, mail.Addr))
			reached := killAt
			if killAt > 0 {
				if reached = killtest.KillAfter(t, child, false, killtest.Prefixed("step "), killAt); reached < killAt {
					t.Fatalf("the child stopped at step %d before the kill point %d", reached, killAt)
				}
			} else {
				killWhileHeld(t, child, hook.HoldAt(-killAt))
			}
			db := diskRepo(t, dir)
			defer db.Close()
			ncfg := notifyConfig()
			ncfg.SMTP.Addr = mail.Addr
			if err := runChecks(t.Context(), db, addr, ncfg, func(int) {}); err != nil {
				t.Fatal(err)
			}
			hooks := hook.Hooks()
			if got := keys(hooks); !slices.Equal(got, want) {
				t.Fatalf("webhook keys after the crash:\n got %v\nwant %v", got, want)
			}
			byKey := map[string]string{}
			for _, h := range hooks {
				n := h.Notification
				body := fmt.Sprint(n.URL, n.Summary, n.Diff)
				if prev, ok := byKey[h.Key]; ok && prev != body {
					t.Errorf("repeat of %s differs:\n%s\n%s", h.Key, prev, body)
				}
				byKey[h.Key] = body
				if h.Key != n.ID {
					t.Errorf("idempotency key %s carries notification %s", h.Key, n.ID)
				}
			}
			var mailKeys []string
			for _, m := range mail.Messages() {
				mailKeys = append(mailKeys, m.Header.Get(notify.HeaderIdempotency))
			}
			slices.Sort(mailKeys)
			if got := slices.Compact(mailKeys); !slices.Equal(got, want) {
				t.Errorf("e-mail keys after the crash:\n got %v\nwant %v", got, want)
			}
			ob := notify.NewOutbox(db, ncfg)
			if p, _ := ob.Pending(t.Context()); p != 0 {
				t.Errorf("%d deliveries still pending", p)
			}
			if killAt < 0 && len(hooks) != len(want)+1 {
				t.Errorf("killed while webhook %d was unanswered: %d requests, want %d (one repeat)", -killAt, len(hooks), len(want)+1)
			}
			t.Logf("kill at %d (child reached %d): %d webhook requests, %d e-mails for %d notifications",
				killAt, reached, len(hooks), len(mail.Messages()), len(want))
		})
	}
}

// killWhileHeld starts the child and kills it with SIGKILL once the
// receiver holds the answer to a webhook.
func killWhileHeld(t *testing.T, child *exec.Cmd, held <-chan struct{}) {
	t.Helper()
	child.Stdout, child.Stderr = io.Discard, io.Discard
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	select {
	case <-held:
	case err := <-exited:
		t.Fatalf("the child exited before the held webhook: %v", err)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
}

// keys returns the distinct idempotency keys, sorted.
func keys(hs []notifytest.Hook) []string {
	var ks []string
	for _, h := range hs {
		ks = append(ks, h.Key)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}
