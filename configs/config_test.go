package configs

import (
	"bytes"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/deltaq/deltaq/crawler"
)

func TestDefaultsLoadAndValidate(t *testing.T) {
	cfg, err := Load(Sources{Env: []string{}})
	if err != nil {
		t.Fatalf("embedded defaults do not load: %v", err)
	}
	if cfg.Crawler.Politeness.MinDelay != time.Second {
		t.Errorf("crawler.politeness.min_delay = %v, want the documented 1s", cfg.Crawler.Politeness.MinDelay)
	}
	if cfg.Crawler.Limits.MaxBodyBytes != 5<<20 {
		t.Errorf("crawler.limits.max_body_bytes = %d, want 5 MiB", cfg.Crawler.Limits.MaxBodyBytes)
	}
}

// expectedErrors maps each bad file under testdata to the message a user
// sees: the file and line, the key, the value and what is allowed.
var expectedErrors = []struct {
	file string
	want []string // the error's lines after "config: invalid:"
}{
	{"unknown_key.bad.yaml", []string{
		"testdata/unknown_key.bad.yaml:3: crawler.politeness.min_dealy: no such setting; crawler.politeness has min_delay, per_host, global, backoff_initial, backoff_max, overrides",
	}},
	{"unknown_section.bad.yaml", []string{
		"testdata/unknown_section.bad.yaml:1: crawlr: no such section; the sections are log, repo, crawler, frontier, index, discovery, ranking, ads, monitor, feeds, server, web, demo, eval, relation, watch, notify, alert, cluster",
	}},
	{"section_as_number.bad.yaml", []string{
		"testdata/section_as_number.bad.yaml:2: crawler.politeness = 5: must be a section with the keys min_delay, per_host, global, backoff_initial, backoff_max, overrides",
	}},
	{"value_as_section.bad.yaml", []string{
		`testdata/value_as_section.bad.yaml:1: log = "debug": must be a section with the keys level, format`,
	}},
	{"list_as_value.bad.yaml", []string{
		`testdata/list_as_value.bad.yaml:2: crawler.resolve = "tldr-en.test=127.0.0.1:8081": must be a list`,
		"testdata/list_as_value.bad.yaml:3: crawler.allow_private = nothing: must be true or false",
	}},
	{"bad_scalars.bad.yaml", []string{
		`testdata/bad_scalars.bad.yaml:3: crawler.politeness.min_delay = "fast": must be a duration such as 500ms, 2s or 1h30m`,
		`testdata/bad_scalars.bad.yaml:4: crawler.politeness.global = "many": must be a whole number`,
	}},
	{"duplicate_keys.bad.yaml", []string{
		"testdata/duplicate_keys.bad.yaml:3: log.level: given a second time (first at line 2); give each key once",
		"testdata/duplicate_keys.bad.yaml:7: crawler.limits.max_depth: given a second time (first at line 6); give each key once",
		"testdata/duplicate_keys.bad.yaml:8: log: given a second time (first at line 1); give each key once",
	}},
	{"out_of_range.bad.yaml", []string{
		`testdata/out_of_range.bad.yaml:3: crawler.politeness.min_delay = "3000000h": must be a duration of at most 2562047h47m16.854775807s`,
		"testdata/out_of_range.bad.yaml:5: crawler.limits.max_depth = 99999999999999999999: must be a whole number from -9223372036854775808 to 9223372036854775807",
		`testdata/out_of_range.bad.yaml:7: frontier.tau = "1e400": must be a finite number`,
	}},
	{"bad_list_items.bad.yaml", []string{
		`testdata/bad_list_items.bad.yaml:3: eval.sync.taus[1] = "high": must be a finite number`,
		"testdata/bad_list_items.bad.yaml:4: eval.sync.budgets = 100: must be a list",
	}},
	{"negative_delay.bad.yaml", []string{
		"testdata/negative_delay.bad.yaml:3: crawler.politeness.min_delay = -1s: must be >= 0",
		"testdata/negative_delay.bad.yaml:4: crawler.politeness.per_host = 0: must be >= 1",
		"testdata/negative_delay.bad.yaml:6: cluster.search_timeout = 0s: must be in (0, 1m]",
	}},
	{"robots_stale_negative.bad.yaml", []string{
		"testdata/robots_stale_negative.bad.yaml:3: crawler.robots.stale_for = -1h0m0s: must be >= 0s",
	}},
	{"robots_stale_long.bad.yaml", []string{
		"testdata/robots_stale_long.bad.yaml:3: crawler.robots.stale_for = 9000h0m0s: must be in [0s, 8760h0m0s]",
	}},
	{"bad_resolve.bad.yaml", []string{
		`testdata/bad_resolve.bad.yaml:3: crawler.resolve[0] = "tldr-en.test": want HOST=ADDR, e.g. tldr-en.test=127.0.0.1:8081`,
		`testdata/bad_resolve.bad.yaml:3: crawler.resolve[1] = "x.test=127.0.0.1": ADDR must be host:port: missing port in address`,
		`testdata/bad_resolve.bad.yaml:3: crawler.resolve[2] = "y.test=127.0.0.1:99999": ADDR must be host:port: the port "99999" is not a number from 0 to 65535`,
	}},
	{"bad_rules.bad.yaml", []string{
		`testdata/bad_rules.bad.yaml:3: crawler.exclude[0] = "/p(": must be a Go regular expression (RE2): missing closing ): ` + "`/p(`",
	}},
	{"bad_log.bad.yaml", []string{
		`testdata/bad_log.bad.yaml:2: log.level = "loud": must be one of debug, info, warn, error`,
		"testdata/bad_log.bad.yaml:4: repo.versions_kept = 0: must be >= 1",
	}},
	// A value of the wrong kind hides nothing else: the values that fit
	// are validated too.
	{"every_problem.bad.yaml", []string{
		`testdata/every_problem.bad.yaml:3: crawler.politeness.min_delay = "2 seconds": must be a duration such as 500ms, 2s or 1h30m`,
		`testdata/every_problem.bad.yaml:10: log.level = "loud": must be one of debug, info, warn, error`,
		"testdata/every_problem.bad.yaml:6: crawler.limits.max_body_bytes = -1: must be > 0",
		"testdata/every_problem.bad.yaml:5: crawler.limits.max_url_length = 99999: must be <= 2048, the longest URL the repository normalizes",
		`testdata/every_problem.bad.yaml:8: server.listen = "notanaddr": must be host:port: missing port in address`,
	}},
	// Sizes that would be allocated whole, or as many goroutines, are
	// bounded: each of these crashed or exhausted memory at run time.
	{"huge.bad.yaml", []string{
		"testdata/huge.bad.yaml:3: crawler.politeness.global = 1000000000: must be in [1, 4096]: a fetch worker each",
		"testdata/huge.bad.yaml:5: crawler.limits.max_body_bytes = 9223372036854775807: must be <= 1073741824 (1 GiB): a body is held in memory whole",
		"testdata/huge.bad.yaml:7: crawler.extract.max_text_bytes = 9223372036854775807: must be <= 1073741824 (1 GiB), the text being held in memory whole",
		"testdata/huge.bad.yaml:9: ads.recent_clicks = 10000000000: must be in [1, 4194304]: the ids are held in memory",
	}},
	// Nor does a misspelled key.
	{"unknown_key_and_more.bad.yaml", []string{
		"testdata/unknown_key_and_more.bad.yaml:2: log.levl: no such setting; log has level, format",
		`testdata/unknown_key_and_more.bad.yaml:3: log.format = "xml": must be text or json`,
		"testdata/unknown_key_and_more.bad.yaml:6: crawler.politeness.per_host = 0: must be >= 1",
	}},
	// A refused value keeps its default, which is not what the user
	// wrote: nothing is said of the default (watch.fetch_timeout = 20s is
	// not shorter than the 10s written for server.http.write_timeout).
	// An alias keeps its value when the anchor's value is taken out.
	{"refused_anchor.bad.yaml", []string{
		`testdata/refused_anchor.bad.yaml:3: crawler.limits.max_depth = "5s": must be a whole number`,
	}},
	{"refused_keeps_default.bad.yaml", []string{
		`testdata/refused_keeps_default.bad.yaml:5: watch.fetch_timeout = "soon": must be a duration such as 500ms, 2s or 1h30m`,
	}},
}

// expectedSyntaxErrors are files that are not YAML at all: one line, at the
// line the problem is on.
var expectedSyntaxErrors = []struct{ file, want string }{
	{"not_yaml.bad.yaml", "config: testdata/not_yaml.bad.yaml:1: not valid YAML: did not find expected ',' or ']'"},
	{"unclosed_list.bad.yaml", "config: testdata/unclosed_list.bad.yaml:4: not valid YAML: did not find expected ',' or ']'"},
	{"tab_indent.bad.yaml", "config: testdata/tab_indent.bad.yaml:4: not valid YAML: a tab in the indentation (YAML indents with spaces only)"},
	{"top_scalar.bad.yaml", "config: testdata/top_scalar.bad.yaml:1: must be a mapping of sections (crawler:, log:, ...) at the top, not a single value"},
	{"two_documents.bad.yaml", "config: testdata/two_documents.bad.yaml:3: a second YAML document (after ---): a configuration file holds one"},
}

func TestBadFilesNameTheFileLineKeyValueAndWhatIsAllowed(t *testing.T) {
	for _, c := range expectedErrors {
		t.Run(c.file, func(t *testing.T) {
			_, err := Load(Sources{File: filepath.Join("testdata", c.file), Env: []string{}})
			want := "config: invalid:\n" + strings.Join(c.want, "\n")
			if err == nil || err.Error() != want {
				t.Errorf("error:\n%v\nwant:\n%s", err, want)
			}
		})
	}
	for _, c := range expectedSyntaxErrors {
		t.Run(c.file, func(t *testing.T) {
			_, err := Load(Sources{File: filepath.Join("testdata", c.file), Env: []string{}})
			if err == nil || err.Error() != c.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, c.want)
			}
		})
	}
}

func TestEveryBadFileHasAnExpectedMessage(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.bad.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, c := range expectedErrors {
		covered[c.file] = true
	}
	for _, c := range expectedSyntaxErrors {
		covered[c.file] = true
	}
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("%s has no row in expectedErrors", f)
		}
	}
}

func TestBadEnvironmentNamesTheVariableKeyValueAndWhatIsAllowed(t *testing.T) {
	cases := []struct{ env, want string }{
		{"DELTAQ_EVAL_SYNC_TAUS=0.1,x", `DELTAQ_EVAL_SYNC_TAUS: eval.sync.taus[1] = "x": must be a finite number`},
		// NaN passes a range check written v < lo || v > hi, so it is
		// refused as no number at all, as is an infinity.
		{"DELTAQ_FRONTIER_SPLIT_RECRAWL=NaN", `DELTAQ_FRONTIER_SPLIT_RECRAWL: frontier.split.recrawl = "NaN": must be a finite number`},
		{"DELTAQ_EVAL_SYNC_TAUS=0.1,-Inf", `DELTAQ_EVAL_SYNC_TAUS: eval.sync.taus[1] = "-Inf": must be a finite number`},
		{"DELTAQ_CRAWLER_POLITENESS_OVERRIDES=[{host: a, min_delay: soon}]",
			`DELTAQ_CRAWLER_POLITENESS_OVERRIDES: crawler.politeness.overrides[0].min_delay = "soon": must be a duration such as 500ms, 2s or 1h30m`},
		{"DELTAQ_CRAWLER_POLITENESS_OVERRIDES=[{host: a", `DELTAQ_CRAWLER_POLITENESS_OVERRIDES: crawler.politeness.overrides = "[{host: a": not a YAML list`},
		{"DELTAQ_CRAWLER_ALLOW_PRIVATE=maybe", `DELTAQ_CRAWLER_ALLOW_PRIVATE: crawler.allow_private = "maybe": must be true or false`},
		{"DELTAQ_CRAWLER_POLITENESS_MIN_DELAY=-3s", "DELTAQ_CRAWLER_POLITENESS_MIN_DELAY: crawler.politeness.min_delay = -3s: must be >= 0"},
		{"DELTAQ_CRAWLER_POLITENESS=5", "environment variable DELTAQ_CRAWLER_POLITENESS names no setting"},
		// A page of the search API holds no more than the ranking orders.
		{"DELTAQ_RANKING_CANDIDATES=50", "server.max_size = 100: must be <= ranking.candidates (50), the results a search orders"},
		// Refused when loaded, before a command creates its data
		// directory, not when a crawl builds its frontier.
		{"DELTAQ_FRONTIER_BUDGET_PERIOD=10s", "monitor.instant = 1m0s: must be at most frontier.budget.period (10s), the period whose budget monitoring shares"},
		{"DELTAQ_WATCH_FETCH_TIMEOUT=30s", "DELTAQ_WATCH_FETCH_TIMEOUT: watch.fetch_timeout = 30s: must be shorter than server.http.write_timeout (30s), within which adding a watch fetches its page"},
	}
	for _, c := range cases {
		t.Run(c.env, func(t *testing.T) {
			_, err := Load(Sources{Env: []string{c.env}})
			want := "config: invalid:\n" + c.want
			if err == nil || err.Error() != want {
				t.Errorf("error:\n%v\nwant:\n%s", err, want)
			}
		})
	}
}

// TestBadVariablesAndFlagsHideNoOtherProblem: a value of the wrong kind,
// from the file, a variable or a flag, is reported with every other.
func TestBadVariablesAndFlagsHideNoOtherProblem(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	writeFile(t, file, "log:\n  level: loud\n")
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("max-depth", "", "")
	if err := fs.Parse([]string{"--max-depth=deep"}); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Sources{File: file, Env: []string{
		"DELTAQ_CRAWLER_ALLOW_PRIVATE=maybe",
		"DELTAQ_CRAWLER_POLITENESS_PER_HOST=0",
	}, Flags: fs, FlagKeys: map[string]string{"max-depth": "crawler.limits.max_depth"}})
	want := "config: invalid:\n" + strings.Join([]string{
		`DELTAQ_CRAWLER_ALLOW_PRIVATE: crawler.allow_private = "maybe": must be true or false`,
		`--max-depth: crawler.limits.max_depth = "deep": must be a whole number`,
		file + `:2: log.level = "loud": must be one of debug, info, warn, error`,
		"DELTAQ_CRAWLER_POLITENESS_PER_HOST: crawler.politeness.per_host = 0: must be >= 1",
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

func TestListSettingsFromTheEnvironment(t *testing.T) {
	cfg, err := Load(Sources{Env: []string{
		"DELTAQ_EVAL_SYNC_TAUS=0.1, 0.7",
		"DELTAQ_EVAL_SYNC_BUDGETS=10,20,40",
		"DELTAQ_CRAWLER_POLITENESS_OVERRIDES=[{host: tldr-en.test, min_delay: 0s, per_host: 8}]",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Eval.Sync.Taus; !slices.Equal(got, []float64{0.1, 0.7}) {
		t.Errorf("taus = %v, want [0.1 0.7]", got)
	}
	if got := cfg.Eval.Sync.Budgets; !slices.Equal(got, []int{10, 20, 40}) {
		t.Errorf("budgets = %v, want [10 20 40]", got)
	}
	o := cfg.Crawler.Politeness.Overrides
	if len(o) != 1 || o[0].Host != "tldr-en.test" || o[0].PerHost != 8 || o[0].MinDelay != 0 {
		t.Errorf("overrides = %+v", o)
	}
}

// TestRulesStartingWithABracketAreTakenAsWritten sets regular expressions
// that open with a bracket, which yaml would read as a flow list ([/]x/ as
// [/], [0-9]+/ as [0-9]) or refuse ([?&]s=), through a repeated flag and
// through the environment: each reaches crawler.exclude as written.
func TestRulesStartingWithABracketAreTakenAsWritten(t *testing.T) {
	rules := []string{`[/]calendar/`, `[0-9]+/`, `[?&]sessionid=`}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.StringArray("exclude", nil, "")
	fs.StringArray("include", nil, "")
	if err := fs.Parse([]string{"--exclude", rules[0], "--exclude", rules[1], "--exclude", rules[2], "--include", rules[0]}); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(Sources{Env: []string{}, Flags: fs, FlagKeys: map[string]string{
		"exclude": "crawler.exclude", "include": "crawler.include",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Crawler.Exclude; !slices.Equal(got, rules) {
		t.Errorf("flags: exclude = %q, want %q", got, rules)
	}
	if got := cfg.Crawler.Include; !slices.Equal(got, rules[:1]) {
		t.Errorf("one flag: include = %q, want %q", got, rules[:1])
	}

	cfg, err = Load(Sources{Env: []string{
		"DELTAQ_CRAWLER_EXCLUDE=" + strings.Join(rules, ","),
		"DELTAQ_CRAWLER_INCLUDE=" + rules[0],
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Crawler.Exclude; !slices.Equal(got, rules) {
		t.Errorf("environment: exclude = %q, want %q", got, rules)
	}
	if got := cfg.Crawler.Include; !slices.Equal(got, rules[:1]) {
		t.Errorf("environment, one rule: include = %q, want %q", got, rules[:1])
	}
}

// TestListOfSectionsIsOneYAMLValue: yaml stops after the first value and
// drops the rest, which must not pass for part of the setting.
func TestListOfSectionsIsOneYAMLValue(t *testing.T) {
	for _, v := range []string{"[{host: a.test, per_host: 2}] [{host: b.test}]", "[{host: a.test, per_host: 2}]]"} {
		_, err := Load(Sources{Env: []string{"DELTAQ_CRAWLER_POLITENESS_OVERRIDES=" + v}})
		want := "config: invalid:\nDELTAQ_CRAWLER_POLITENESS_OVERRIDES: crawler.politeness.overrides = " + strconv.Quote(v) + ": not a YAML list"
		if err == nil || err.Error() != want {
			t.Errorf("error:\n%v\nwant:\n%s", err, want)
		}
	}
}

func TestGoodFileOverridesDefaults(t *testing.T) {
	cfg, err := Load(Sources{File: filepath.Join("testdata", "loopback.good.yaml"), Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Crawler.AllowPrivate || len(cfg.Crawler.Resolve) != 1 {
		t.Fatalf("file not applied: allow_private=%v resolve=%v", cfg.Crawler.AllowPrivate, cfg.Crawler.Resolve)
	}
	o := cfg.Crawler.Politeness.Overrides
	if len(o) != 1 || o[0].Host != "tldr-en.test" || o[0].PerHost != 8 || o[0].MinDelay != 0 {
		t.Fatalf("overrides = %+v", o)
	}
	if cfg.Crawler.Politeness.MinDelay != time.Second {
		t.Errorf("a key absent from the file lost its default: min_delay = %v", cfg.Crawler.Politeness.MinDelay)
	}
}

func TestPrecedenceIsDefaultsFileEnvFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	writeFile(t, file, "crawler:\n  politeness:\n    min_delay: 2s\n    global: 7\n  limits:\n    max_depth: 3\n")
	env := []string{
		"DELTAQ_CRAWLER_POLITENESS_MIN_DELAY=3s",
		"DELTAQ_CRAWLER_LIMITS_MAX_DEPTH=4",
		"DELTAQ_CRAWLER_RESOLVE=a.test=127.0.0.1:1,b.test=127.0.0.1:2",
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Int("max-depth", 0, "")
	fs.Int("unset", 0, "")
	if err := fs.Parse([]string{"--max-depth=5"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(Sources{File: file, Env: env, Flags: fs, FlagKeys: map[string]string{
		"max-depth": "crawler.limits.max_depth",
		"unset":     "crawler.limits.max_redirects",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Crawler.Politeness.Global; got != 7 {
		t.Errorf("file over default: global = %d, want 7", got)
	}
	if got := cfg.Crawler.Politeness.MinDelay; got != 3*time.Second {
		t.Errorf("env over file: min_delay = %v, want 3s", got)
	}
	if got := cfg.Crawler.Limits.MaxDepth; got != 5 {
		t.Errorf("flag over env: max_depth = %d, want 5", got)
	}
	if got := cfg.Crawler.Limits.MaxRedirects; got != 5 {
		t.Errorf("an unset flag overrode the default: max_redirects = %d, want 5", got)
	}
	if got := cfg.Crawler.Resolve; !slices.Equal(got, []string{"a.test=127.0.0.1:1", "b.test=127.0.0.1:2"}) {
		t.Errorf("env list: resolve = %q", got)
	}
}

func TestUnknownEnvironmentVariableIsAnError(t *testing.T) {
	_, err := Load(Sources{Env: []string{"DELTAQ_CRAWLER_MAX_DEPHT=3"}})
	if err == nil || !strings.Contains(err.Error(), "DELTAQ_CRAWLER_MAX_DEPHT") {
		t.Fatalf("err = %v, want it to name the variable", err)
	}
}

// TestEveryKeyHasAFieldAndEveryFieldAKey keeps default.yaml and Config in
// step: UnmarshalExact already rejects YAML keys without a field; this checks
// the other direction, so no setting exists only as a Go zero value.
func TestEveryKeyHasAFieldAndEveryFieldAKey(t *testing.T) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(DefaultYAML)); err != nil {
		t.Fatal(err)
	}
	yamlKeys := v.AllKeys()
	fieldKeys := structKeys(reflect.TypeOf(Config{}), "")
	sort.Strings(yamlKeys)
	sort.Strings(fieldKeys)
	if !slices.Equal(yamlKeys, fieldKeys) {
		for _, k := range fieldKeys {
			if !slices.Contains(yamlKeys, k) {
				t.Errorf("field %s has no key in default.yaml", k)
			}
		}
		for _, k := range yamlKeys {
			if !slices.Contains(fieldKeys, k) {
				t.Errorf("key %s in default.yaml has no field", k)
			}
		}
	}
}

func structKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("mapstructure")
		if tag == "" || tag == "-" {
			continue
		}
		key := prefix + tag
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() != "time" {
			out = append(out, structKeys(f.Type, key+".")...)
			continue
		}
		out = append(out, key)
	}
	return out
}

func TestEffectiveUsesTheYAMLKeyNames(t *testing.T) {
	out, err := Effective(Sources{Env: []string{"DELTAQ_CRAWLER_POLITENESS_MIN_DELAY=250ms"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"min_delay: 250ms", "max_body_bytes: 5242880", "user_agent:"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("effective config lacks %q:\n%s", want, out)
		}
	}
}

// TestAFileWithoutEndIsRefused: --config /dev/zero was read until memory
// ran out; a file is read up to MaxFileBytes and refused beyond.
func TestAFileWithoutEndIsRefused(t *testing.T) {
	_, err := Load(Sources{File: "/dev/zero"})
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: over 4194304 bytes (4 MiB)") {
		t.Errorf("Load of /dev/zero: %v, want it refused naming the bound", err)
	}
}

// TestPolitenessOverridesKeepWhatTheyLeaveOut: an override that names one
// of min_delay and per_host keeps the other from crawler.politeness, so
// that {host, per_host} does not drop the delay to zero; one that names
// both, 0s included, is taken as written.
func TestPolitenessOverridesKeepWhatTheyLeaveOut(t *testing.T) {
	cfg, err := Load(Sources{Env: []string{
		"DELTAQ_CRAWLER_POLITENESS_MIN_DELAY=3s",
		"DELTAQ_CRAWLER_POLITENESS_PER_HOST=2",
		"DELTAQ_CRAWLER_POLITENESS_OVERRIDES=[{host: a.test, per_host: 5}, {host: b.test, min_delay: 0s}, {host: c.test, min_delay: 0s, per_host: 8}, {host: d.test}]",
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []crawler.HostOverride{
		{Host: "a.test", MinDelay: 3 * time.Second, PerHost: 5},
		{Host: "b.test", MinDelay: 0, PerHost: 2},
		{Host: "c.test", MinDelay: 0, PerHost: 8},
		{Host: "d.test", MinDelay: 3 * time.Second, PerHost: 2},
	}
	if got := cfg.Crawler.Politeness.Overrides; !slices.Equal(got, want) {
		t.Errorf("overrides = %+v, want %+v", got, want)
	}
}
