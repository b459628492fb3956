package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/alert"
	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
	"github.com/deltaq/deltaq/web"
)

// watchEnv is what the watch and alert commands open over a data directory.
type watchEnv struct {
	cfg    *configs.Config
	logger *slog.Logger
	db     *repo.DB
	outbox *notify.Outbox
	engine *watch.Engine
}

// openWatchEnv opens the watch environment of dataDir, the repository with
// open: openCrawledRepo for the commands that list, show or remove watches
// and alerts, which must not create an empty repository at a mistyped path
// and report on it; openRepo for those that add a watch or an alert, or try
// a watch out before adding it, which may start a repository; openKeyRepo
// for those that print a key (watch key, notify secret).
func (a *app) openWatchEnv(cmd *cobra.Command, dataDir string, open repoOpener) (*watchEnv, error) {
	cfg, err := a.load(cmd)
	if err != nil {
		return nil, err
	}
	e := &watchEnv{cfg: cfg, logger: a.logger(cfg)}
	if e.db, err = open(dataDir, cfg, e.logger); err != nil {
		return nil, err
	}
	e.outbox = notify.NewOutbox(e.db, cfg.Notify)
	if e.engine, err = openWatches(e.db, cfg, e.outbox, e.logger); err != nil {
		e.db.Close()
		return nil, err
	}
	return e, nil
}

// openKeyRepo opens the repository a key is made in and printed from. A
// data directory that is there may start one (a key made before the first
// serve is served), but one that is not is a mistyped --data, refused as
// openCrawledRepo refuses it: the key printed would be in no repository
// the server uses.
func openKeyRepo(dataDir string, cfg *configs.Config, logger *slog.Logger) (*repo.DB, error) {
	if _, err := os.Stat(dataDir); errors.Is(err, fs.ErrNotExist) {
		return openCrawledRepo(dataDir, cfg, logger)
	}
	return openRepo(dataDir, cfg, logger)
}

func (e *watchEnv) close() error {
	return errors.Join(e.engine.Close(), e.db.Close())
}

// notifyUsage is the help of a --notify flag. The flag is a string array,
// not a slice: a webhook URL may hold a comma.
const notifyUsage = "webhook:URL, email:ADDR or feed (repeatable; a comma is part of the target)"

// specFlags are the flags that describe a sentinel.
type specFlags struct {
	typ, sel, object, direction, regex, every, mode, period, until, user string
	keywords, notify                                                     []string
	minChange                                                            float64
	everyN                                                               int
}

func (f *specFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.typ, "type", "any", "any, links, images, words, keywords, regex, phrase, table, list")
	fs.StringVar(&f.sel, "select", "", "CSS selector scoping the object")
	fs.StringVar(&f.object, "object", "", "the phrase (located by its bounding box), or text identifying a table or list")
	fs.StringSliceVar(&f.keywords, "keywords", nil, "keywords (all must appear)")
	fs.StringVar(&f.direction, "direction", "", "appear or disappear (keywords; default both)")
	fs.StringVar(&f.regex, "regex", "", "regular expression (regex)")
	fs.Float64Var(&f.minChange, "min-change", 0, "fire only when this fraction of the object changed")
	fs.IntVar(&f.everyN, "every-n", 0, "fire on every n-th change")
	fs.StringVar(&f.every, "every", "", fmt.Sprintf("wished check interval (default %v; an urgency for the scheduler, not a timer)", watch.DefaultEvery))
	fs.StringVar(&f.mode, "mode", "eager", "eager, or digest (one notification per --period)")
	fs.StringVar(&f.period, "period", "", "digest period")
	fs.StringArrayVar(&f.notify, "notify", nil, notifyUsage)
	fs.StringVar(&f.until, "until", "", "stop date (YYYY-MM-DD or RFC 3339; default watch.duration)")
	fs.StringVar(&f.user, "user", "", "owner")
}

// spec is the sentinel the flags describe, with at most maxTargets
// --notify targets (notify.max_targets).
func (f *specFlags) spec(url string, maxTargets int) (watch.Spec, error) {
	s := watch.Spec{User: f.user, URL: url, Type: watch.Type(f.typ), Selector: f.sel, Object: f.object, Keywords: f.keywords,
		Direction: watch.Direction(f.direction), Regex: f.regex, MinChange: f.minChange, EveryN: f.everyN, Mode: watch.Mode(f.mode)}
	if err := s.ParseTimes(f.every, f.period, f.until); err != nil {
		return s, fmt.Errorf("--%w", err)
	}
	var err error
	if s.Notify, err = notify.ParseTargets(f.notify, maxTargets); err != nil {
		return s, fmt.Errorf("--%w", err)
	}
	return s, nil
}

func (a *app) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, string(b))
	return err
}

// withWatches runs fn over the watch environment of --data (openWatchEnv).
func (a *app) withWatches(cmd *cobra.Command, dataDir *string, open repoOpener, fn func(ctx context.Context, e *watchEnv) error) error {
	e, err := a.openWatchEnv(cmd, *dataDir, open)
	if err != nil {
		return err
	}
	err = fn(cmd.Context(), e)
	if cerr := e.close(); err == nil {
		err = cerr
	}
	return err
}

// watchCommands builds the watch subcommands, which share the data
// directory their parent's --data names.
type watchCommands struct {
	a       *app
	dataDir string
}

func (a *app) newWatchCmd() *cobra.Command {
	wc := &watchCommands{a: a}
	cmd := &cobra.Command{Use: "watch", Short: "Sentinels on web pages: tell me when this page, or this part of it, changes (WebCQ)"}
	cmd.PersistentFlags().StringVar(&wc.dataDir, "data", "", "data directory")
	cmd.AddCommand(wc.addCmd(), wc.testCmd(), wc.listCmd(), wc.showCmd(), wc.historyCmd(), wc.rmCmd(), wc.keyCmd(), wc.feedURLCmd(), wc.revokeCmd())
	return cmd
}

// byID is a subcommand that runs fn on the sentinel its one argument
// names, and says so when there is none.
func (wc *watchCommands) byID(use, short string, fn func(ctx context.Context, e *watchEnv, id string) error) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		return wc.a.withWatches(cmd, &wc.dataDir, openCrawledRepo, func(ctx context.Context, e *watchEnv) error {
			return noSuch(fn(ctx, e, args[0]), "sentinel", args[0], "deltaq watch list")
		})
	}}
}

// addCmd is watch add.
func (wc *watchCommands) addCmd() *cobra.Command {
	a := wc.a
	var add specFlags
	addCmd := &cobra.Command{
		Use:   "add URL [--type T] [--select CSS] [--object TEXT] [--keywords a,b] [--every 1h] [--notify webhook:URL|email:ADDR|feed] [--until DATE]",
		Short: "Install a sentinel", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withWatches(cmd, &wc.dataDir, openRepo, func(ctx context.Context, e *watchEnv) error {
				spec, err := add.spec(args[0], e.cfg.Notify.MaxTargets)
				if err != nil {
					return err
				}
				s, err := e.engine.Install(ctx, spec)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "installed %s: %s sentinel on %s, checked about every %s, until %s\n", s.ID, s.Type, s.URL, s.Every, s.Stop.Format(time.DateOnly))
				return nil
			})
		},
	}
	add.add(addCmd)
	addDialFlags(addCmd)
	dialFlagsInstallOnly(addCmd)
	return addCmd
}

// testCmd is watch test.
func (wc *watchCommands) testCmd() *cobra.Command {
	a := wc.a
	var test specFlags
	testCmd := &cobra.Command{
		Use: "test URL --type T [...]", Short: "Show what a sentinel would track on the stored copy of the page", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withWatches(cmd, &wc.dataDir, openRepo, func(ctx context.Context, e *watchEnv) error {
				spec, err := test.spec(args[0], e.cfg.Notify.MaxTargets)
				if err != nil {
					return err
				}
				obj, err := e.engine.Test(ctx, spec)
				if err != nil {
					return err
				}
				out := testedObject{Object: obj}
				if spec.Type == watch.Keywords {
					out.Flag = &obj.Flag
				}
				return a.printJSON(out)
			})
		},
	}
	test.add(testCmd)
	addDialFlags(testCmd)
	return testCmd
}

// listCmd is watch list.
func (wc *watchCommands) listCmd() *cobra.Command {
	a := wc.a
	var user string
	listCmd := &cobra.Command{
		Use: "list [--user U]", Short: "List sentinels", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withWatches(cmd, &wc.dataDir, openCrawledRepo, func(ctx context.Context, e *watchEnv) error {
				ss, err := e.engine.List(ctx, user)
				if err != nil {
					return err
				}
				for _, s := range ss {
					fmt.Fprintf(a.stdout, "%s\t%s\t%s\tevery %s\t%d changes\t%d notifications\n", s.ID, s.Type, s.URL, s.Every, s.Changes, s.Notifications)
				}
				fmt.Fprintf(a.stdout, "%d sentinels\n", len(ss))
				return nil
			})
		},
	}
	listCmd.Flags().StringVar(&user, "user", "", "only this user's")
	return listCmd
}

// showCmd is watch show.
func (wc *watchCommands) showCmd() *cobra.Command {
	a := wc.a
	return wc.byID("show ID", "Show a sentinel and its evaluation record", func(ctx context.Context, e *watchEnv, id string) error {
		s, err := e.engine.Get(ctx, id)
		if err != nil {
			return err
		}
		checked, err := e.engine.LastChecked(s)
		if err != nil {
			return err
		}
		return a.printJSON(web.WatchJSON(s, checked[s.ID]))
	})
}

// historyCmd is watch history.
func (wc *watchCommands) historyCmd() *cobra.Command {
	a := wc.a
	return wc.byID("history ID", "Show a sentinel's detected changes and failed checks", func(ctx context.Context, e *watchEnv, id string) error {
		h, err := e.engine.History(ctx, id)
		if err != nil {
			return err
		}
		fs, err := e.engine.Failures(ctx, id)
		if err != nil {
			return err
		}
		// Changes and failed checks in the order they happened: a run of
		// failures where it began.
		changes, failed := len(h), 0
		for _, f := range fs {
			failed += f.Count
		}
		for len(h) > 0 || len(fs) > 0 {
			if len(fs) > 0 && (len(h) == 0 || fs[0].First.Before(h[0].At)) {
				f := fs[0]
				fs = fs[1:]
				fmt.Fprintf(a.stdout, "%s\tfailed\t%d checks to %s\t%s\t%s\n", f.First.Format(time.RFC3339), f.Count, f.Last.Format(time.RFC3339), f.Kind, f.Error)
				continue
			}
			c := h[0]
			h = h[1:]
			fmt.Fprintf(a.stdout, "%s\t%s\t%.0f%% changed\tfired %v\n", c.At.Format(time.RFC3339), c.Kind, 100*c.Fraction, c.Fired)
			if c.Diff != nil {
				fmt.Fprint(a.stdout, c.Diff.PlainText())
			}
		}
		fmt.Fprintf(a.stdout, "%d changes, %d failed checks\n", changes, failed)
		return nil
	})
}

// rmCmd is watch rm.
func (wc *watchCommands) rmCmd() *cobra.Command {
	a := wc.a
	return wc.byID("rm ID", "Remove a sentinel", func(ctx context.Context, e *watchEnv, id string) error {
		if err := e.engine.Remove(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "removed %s\n", id)
		return nil
	})
}

// keyCmd is watch key.
func (wc *watchCommands) keyCmd() *cobra.Command {
	a := wc.a
	var key watch.Key
	var server string // the admin listener of a running server (--server)
	keyCmd := &cobra.Command{
		Use: "key USER [--max-watches N] [--min-every D] [--max-regex-bytes N] [--server ADMIN_URL]", Short: "Create an API key for /api/v1/watches and /api/v1/alerts",
		Long: fmt.Sprintf("Create an API key for /api/v1/watches and /api/v1/alerts.\n\nUSER is %d bytes at most of ASCII letters, digits, '.', '_', '-' and '@'.\n\n%s", watch.MaxUserBytes, serverKeyHelp),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Checked before the repository is opened, and named as the
			// usage names it.
			if err := watch.CheckUser(args[0]); err != nil {
				var fe *watch.FieldError
				if errors.As(err, &fe) {
					fe.Field = "USER"
				}
				return err
			}
			key.User = args[0]
			if server != "" {
				if wc.dataDir != "" {
					return errDataAndServer
				}
				return a.makeKeyThrough(cmd, server, key)
			}
			return a.withWatches(cmd, &wc.dataDir, openKeyRepo, func(ctx context.Context, e *watchEnv) error {
				secret, err := e.engine.CreateKey(ctx, key)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "%s\n", secret)
				return nil
			})
		},
	}
	keyCmd.Flags().IntVar(&key.MaxWatches, "max-watches", watch.DefaultKeyLimits.MaxWatches, "most watches (and most alerts) for the key")
	keyCmd.Flags().DurationVar(&key.MinEvery, "min-every", watch.DefaultKeyLimits.MinEvery, "shortest wished interval")
	keyCmd.Flags().IntVar(&key.MaxRegexBytes, "max-regex-bytes", watch.DefaultKeyLimits.MaxRegexBytes, "longest regex")
	keyCmd.Flags().StringVar(&server, "server", "", "admin listener of a running server, e.g. http://127.0.0.1:8081")
	return keyCmd
}

// feedURLCmd is watch feed-url. A feed reader cannot send the key as a
// bearer header: feed-url gives the URLs it can subscribe to, with the
// key's feed token.
func (wc *watchCommands) feedURLCmd() *cobra.Command {
	a := wc.a
	var base string
	feedURLCmd := &cobra.Command{
		Use: "feed-url KEY [--base URL]", Short: "Print the Atom feed URLs of a key's user, with its feed token, for a feed reader",
		Long: "Print the Atom feed URLs of a key's user (theirs, and each of their watches' and alerts'), with its feed token,\n" +
			"for a feed reader. --base is the server's URL as feed readers reach it; without it, http:// and server.listen,\n" +
			"with 127.0.0.1 for a wildcard address (0.0.0.0, ::, none), which only this machine reaches.\n\n" + keyArgHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			secret, err := keyArg(cmd, args[0])
			if err != nil {
				return err
			}
			if err := checkBase(base); err != nil {
				return err
			}
			return a.withWatches(cmd, &wc.dataDir, openCrawledRepo, func(ctx context.Context, e *watchEnv) error {
				k, ok, err := e.engine.Authenticate(secret)
				if err != nil {
					return err
				}
				if !ok {
					return errors.New("KEY: no such key here (deltaq watch key USER makes one)")
				}
				token, err := e.engine.FeedToken(ctx, k)
				if err != nil {
					return err
				}
				root := strings.TrimSuffix(base, "/")
				if root == "" {
					var wildcard bool
					root, wildcard = listenBase(e.cfg.Server.Listen)
					if wildcard {
						fmt.Fprintf(a.stderr, "server.listen %s is every address of this machine; the URLs use %s, which reaches it from here only: give --base, the server's URL as feed readers reach it\n", e.cfg.Server.Listen, root)
					}
				}
				feeds := web.FeedURLs{Base: root, Token: token}
				fmt.Fprintf(a.stdout, "%s\tevery watch and alert of %s\n", feeds.User(), k.User)
				ss, err := e.engine.List(ctx, k.User)
				if err != nil {
					return err
				}
				for _, s := range ss {
					fmt.Fprintf(a.stdout, "%s\t%s %s on %s\n", feeds.Watch(s.ID), s.ID, s.Type, s.URL)
				}
				m, err := openAlerts(ctx, e.db, e.cfg, e.outbox, e.logger)
				if err != nil {
					return err
				}
				for _, al := range m.List(k.User) {
					fmt.Fprintf(a.stdout, "%s\t%s alert %q\n", feeds.Alert(al.ID), al.ID, al.Query)
				}
				return nil
			})
		},
	}
	feedURLCmd.Flags().StringVar(&base, "base", "", "the server's URL as feed readers reach it, such as https://deltaq.example (default http:// and server.listen)")
	return feedURLCmd
}

// revokeCmd is watch revoke-key.
func (wc *watchCommands) revokeCmd() *cobra.Command {
	a := wc.a
	var server string // the admin listener of a running server (--server)
	revokeCmd := &cobra.Command{
		Use: "revoke-key KEY [--server ADMIN_URL]", Short: "Revoke an API key and its feed token", Args: cobra.ExactArgs(1),
		Long: "Revoke an API key and its feed token: neither is accepted again.\n\n" + keyArgHelp + "\n\n" + serverKeyHelp,
		RunE: func(cmd *cobra.Command, args []string) error {
			secret, err := keyArg(cmd, args[0])
			if err != nil {
				return err
			}
			if server != "" {
				if wc.dataDir != "" {
					return errDataAndServer
				}
				var revoked struct{ User string }
				if err := postAdmin(cmd.Context(), server, "/api/v1/keys/revoke", adminAnswerTimeout, quickAdminLimit, map[string]string{"key": secret}, &revoked); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "revoked a key of %s and its feed token\n", revoked.User)
				return nil
			}
			return a.withWatches(cmd, &wc.dataDir, openCrawledRepo, func(ctx context.Context, e *watchEnv) error {
				k, err := e.engine.RevokeKey(ctx, secret)
				if errors.Is(err, watch.ErrNoSuchKey) {
					return errors.New("KEY: no such key here (revoked already, or made on another repository)")
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "revoked a key of %s and its feed token\n", k.User)
				return nil
			})
		},
	}
	revokeCmd.Flags().StringVar(&server, "server", "", "admin listener of a running server, e.g. http://127.0.0.1:8081")
	return revokeCmd
}

// serverKeyHelp says how the key commands reach a running server.
const serverKeyHelp = `With --data, the repository must not be in use. With --server, the running
deltaq serve, run or demo whose admin listener (server.admin.listen) is at
ADMIN_URL does it, while it serves.`

// makeKeyThrough asks the server whose admin listener is at server to make
// key, and prints it.
func (a *app) makeKeyThrough(cmd *cobra.Command, server string, key watch.Key) error {
	body := map[string]any{"user": key.User, "max_watches": key.MaxWatches,
		"min_every": key.MinEvery.String(), "max_regex_bytes": key.MaxRegexBytes}
	var made web.MadeKey
	if err := postAdmin(cmd.Context(), server, "/api/v1/keys", adminAnswerTimeout, quickAdminLimit, body, &made); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s\n", made.Key)
	return nil
}

// testedObject is what watch test prints: the object, whose flag (all the
// keywords are present) a keywords sentinel shows even when false, for
// that is its whole object; the other types have no flag to show.
type testedObject struct {
	watch.Object
	Flag *bool `json:"flag,omitempty"`
}

func (a *app) newAlertCmd() *cobra.Command {
	var dataDir, user string
	var targets []string
	var everyChange bool
	cmd := &cobra.Command{Use: "alert", Short: "Standing search queries, matched against every new or changed page as it is indexed"}
	cmd.PersistentFlags().StringVar(&dataDir, "data", "", "data directory")
	withAlerts := func(cmd *cobra.Command, open repoOpener, fn func(ctx context.Context, m *alert.Matcher, cfg *configs.Config) error) error {
		return a.withWatches(cmd, &dataDir, open, func(ctx context.Context, e *watchEnv) error {
			m, err := openAlerts(ctx, e.db, e.cfg, e.outbox, e.logger)
			if err != nil {
				return err
			}
			return fn(ctx, m, e.cfg)
		})
	}
	addCmd := &cobra.Command{
		Use: "add QUERY --notify webhook:URL|email:ADDR|feed [--user U] [--every-change]", Short: "Add a standing query", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if user != "" { // no owner: an alert of the operator's
				if err := watch.CheckUser(user); err != nil {
					return fmt.Errorf("--%w", err)
				}
			}
			return withAlerts(cmd, openRepo, func(ctx context.Context, m *alert.Matcher, cfg *configs.Config) error {
				to, err := notify.ParseTargets(targets, cfg.Notify.MaxTargets)
				if err != nil {
					return fmt.Errorf("--%w", err)
				}
				out, err := m.Add(ctx, alert.Alert{User: user, Query: args[0], Notify: to, EveryChange: everyChange})
				// A refused query is named as the usage names it, not as
				// search's parameter q.
				var qe *index.QueryError
				if errors.As(err, &qe) {
					return fmt.Errorf("QUERY %q: %s (want %s)", index.Excerpt(args[0]), qe.Msg, qe.Limit)
				}
				var te *notify.TargetError
				if errors.As(err, &te) {
					return fmt.Errorf("--%w", err)
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "added %s: %q\n", out.ID, out.Query)
				return nil
			})
		},
	}
	addCmd.Flags().StringArrayVar(&targets, "notify", nil, "at least one of: "+notifyUsage)
	addCmd.Flags().StringVar(&user, "user", "", "owner")
	addCmd.Flags().BoolVar(&everyChange, "every-change", false, "notify every change of a matching page, not only its first match")
	listCmd := &cobra.Command{
		Use: "list", Short: "List standing queries", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withAlerts(cmd, openCrawledRepo, func(_ context.Context, m *alert.Matcher, _ *configs.Config) error {
				as := m.List("")
				for _, al := range as {
					sends := "once per page"
					if al.EveryChange {
						sends = "every change"
					}
					fmt.Fprintf(a.stdout, "%s\t%s\t%q\t%s\n", al.ID, al.User, al.Query, sends)
				}
				fmt.Fprintf(a.stdout, "%d alerts\n", len(as))
				return nil
			})
		},
	}
	rmCmd := &cobra.Command{
		Use: "rm ID", Short: "Remove a standing query", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withAlerts(cmd, openCrawledRepo, func(ctx context.Context, m *alert.Matcher, _ *configs.Config) error {
				return noSuch(m.Remove(ctx, args[0]), "alert", args[0], "deltaq alert list")
			})
		},
	}
	cmd.AddCommand(addCmd, listCmd, rmCmd)
	return cmd
}

// noSuch turns err, when it is a record not found, into an error that
// names what the user asked for and the command that lists what there is.
func noSuch(err error, what, id, list string) error {
	if errors.Is(err, repo.ErrNotFound) {
		return fmt.Errorf("no %s %q (%s shows them)", what, id, list)
	}
	return err
}

// checkBase refuses a --base that is not an absolute http(s) URL to put
// feed paths after: a query, a fragment, user info or a space in it would
// break the URLs printed, and another scheme (javascript:) is no server.
func checkBase(base string) error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(base, "#? \t\r\n") {
		return fmt.Errorf("--base = %q: must be an absolute http:// or https:// URL with a host and no query, fragment, user info or spaces, such as https://deltaq.example",
			index.Excerpt(base))
	}
	return nil
}

// listenBase is the URL of a server listening on listen (server.listen).
// A wildcard host (0.0.0.0, ::, none) is no address to fetch, so it
// becomes 127.0.0.1, and wildcard says so.
func listenBase(listen string) (base string, wildcard bool) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "http://" + listen, false
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return "http://" + net.JoinHostPort("127.0.0.1", port), true
	}
	return "http://" + listen, false
}

// keyArgHelp says how a command takes an API key.
const keyArgHelp = `KEY is the key deltaq watch key printed, or - to read it from the first
line of standard input, which keeps it out of the shell's history.`

// keyArg is the API key given as arg, or, for "-", the first line of
// standard input. A feed token given instead is named as one: it looks
// enough like a key to be pasted for one.
func keyArg(cmd *cobra.Command, arg string) (string, error) {
	name, key := "KEY", strings.TrimSpace(arg)
	if arg == "-" {
		name = "KEY -"
		line, err := bufio.NewReader(io.LimitReader(cmd.InOrStdin(), 4096)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("KEY -: read standard input: %w", err)
		}
		if key = strings.TrimSpace(line); key == "" {
			return "", errors.New("KEY -: standard input holds no key on its first line")
		}
	}
	if strings.HasPrefix(key, watch.FeedTokenPrefix) {
		return "", fmt.Errorf("%s: a feed token (%s…), which goes in a feed reader's URL, not a key; give the key deltaq watch key printed, which starts with %s",
			name, watch.FeedTokenPrefix, watch.KeyPrefix)
	}
	return key, nil
}
