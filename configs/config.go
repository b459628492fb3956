package configs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/deltaq/deltaq/ads"
	"github.com/deltaq/deltaq/alert"
	"github.com/deltaq/deltaq/cluster"
	"github.com/deltaq/deltaq/crawler"
	"github.com/deltaq/deltaq/discovery"
	"github.com/deltaq/deltaq/eval/adsim"
	"github.com/deltaq/deltaq/eval/discoveryeval"
	"github.com/deltaq/deltaq/eval/fanouteval"
	"github.com/deltaq/deltaq/eval/feedseval"
	"github.com/deltaq/deltaq/eval/monitoreval"
	"github.com/deltaq/deltaq/eval/ranksim"
	"github.com/deltaq/deltaq/eval/relationeval"
	"github.com/deltaq/deltaq/eval/replay"
	"github.com/deltaq/deltaq/eval/sentineleval"
	"github.com/deltaq/deltaq/eval/synceval"
	"github.com/deltaq/deltaq/eval/synthweb"
	"github.com/deltaq/deltaq/feeds"
	"github.com/deltaq/deltaq/frontier"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/internal/boundedfile"
	"github.com/deltaq/deltaq/internal/bounds"
	"github.com/deltaq/deltaq/monitor"
	"github.com/deltaq/deltaq/notify"
	"github.com/deltaq/deltaq/ranking"
	"github.com/deltaq/deltaq/relation"
	"github.com/deltaq/deltaq/repo"
	"github.com/deltaq/deltaq/watch"
	"github.com/deltaq/deltaq/web"
)

// Config mirrors configs/default.yaml.
type Config struct {
	Log       LogConfig        `mapstructure:"log"`
	Repo      repo.Config      `mapstructure:"repo"`
	Crawler   crawler.Config   `mapstructure:"crawler"`
	Frontier  frontier.Config  `mapstructure:"frontier"`
	Index     index.Config     `mapstructure:"index"`
	Discovery discovery.Config `mapstructure:"discovery"`
	Ranking   ranking.Config   `mapstructure:"ranking"`
	Ads       ads.Config       `mapstructure:"ads"`
	Monitor   monitor.Config   `mapstructure:"monitor"`
	Feeds     feeds.Config     `mapstructure:"feeds"`
	Server    web.Config       `mapstructure:"server"`
	Web       WebConfig        `mapstructure:"web"`
	Demo      DemoConfig       `mapstructure:"demo"`
	Eval      EvalConfig       `mapstructure:"eval"`
	Relation  relation.Config  `mapstructure:"relation"`
	Watch     watch.Config     `mapstructure:"watch"`
	Notify    notify.Config    `mapstructure:"notify"`
	Alert     alert.Config     `mapstructure:"alert"`
	Cluster   cluster.Config   `mapstructure:"cluster"`
}

// DemoConfig is what `deltaq demo` changes in the rest of the
// configuration to crawl the synthetic web (web.synth) on loopback.
type DemoConfig struct {
	MinDelay         time.Duration         `mapstructure:"min_delay"`
	PerHost          int                   `mapstructure:"per_host"`
	Policy           string                `mapstructure:"policy"`
	Budget           frontier.BudgetConfig `mapstructure:"budget"`
	Split            frontier.SplitConfig  `mapstructure:"split"`
	Queries          int                   `mapstructure:"queries"`
	PageRankInterval time.Duration         `mapstructure:"pagerank_interval"`
	PortTries        int                   `mapstructure:"port_tries"`
}

// Upper bounds of the demo's counts, far above any real use: the sample
// queries are drawn in a loop of a few draws per query and site, and the
// ports tried are 16-bit.
const (
	maxDemoQueries = 100_000
	maxPortTries   = 65535
)

// between is key's problem when v is outside [lo, hi]: below lo as a lower
// bound, above hi with the whole range; nil inside.
func between(key string, v, lo, hi int) error {
	if limit := bounds.Limit(int64(v), int64(lo), int64(hi)); limit != "" {
		return fmt.Errorf("%s = %d: %s", key, v, limit)
	}
	return nil
}

// Validate reports every problem in the demo settings.
func (d DemoConfig) Validate() error {
	var errs []error
	if d.MinDelay < 0 {
		errs = append(errs, fmt.Errorf("demo.min_delay = %v: must be >= 0", d.MinDelay))
	}
	// per_host becomes a crawler.politeness.overrides entry, bounded as its per_host is.
	errs = append(errs, between("demo.per_host", d.PerHost, 1, crawler.MaxFetches), between("demo.queries", d.Queries, 1, maxDemoQueries))
	if d.PageRankInterval < time.Minute {
		errs = append(errs, fmt.Errorf("demo.pagerank_interval = %v: must be >= 1m", d.PageRankInterval))
	}
	errs = append(errs, between("demo.port_tries", d.PortTries, 0, maxPortTries))
	f := frontier.Config{Policy: d.Policy, Budget: d.Budget, Split: d.Split, HostBuffer: 1, Window: 1, Exploration: frontier.Explorations()[0], Changes: frontier.ChangeModels()[0]}
	if err := f.Validate(frontier.Policies()); err != nil {
		// The frontier names its keys frontier.*: here they are demo.*.
		for line := range strings.SplitSeq(err.Error(), "\n") {
			errs = append(errs, errors.New("demo."+strings.TrimPrefix(line, "frontier.")))
		}
	}
	return errors.Join(errs...)
}

// EvalConfig configures the offline evaluations of `deltaq eval`.
type EvalConfig struct {
	Ads       adsim.Config         `mapstructure:"ads"`
	Discovery discoveryeval.Config `mapstructure:"discovery"`
	Feeds     feedseval.Config     `mapstructure:"feeds"`
	Monitor   monitoreval.Config   `mapstructure:"monitor"`
	Ranking   ranksim.Config       `mapstructure:"ranking"`
	Sync      synceval.Config      `mapstructure:"sync"`
	Relation  relationeval.Config  `mapstructure:"relation"`
	Sentinels sentineleval.Config  `mapstructure:"sentinels"`
	Fanout    fanouteval.Config    `mapstructure:"fanout"`
}

// WebConfig configures the test webs served by `deltaq web` and used by
// the demo and the evaluations.
type WebConfig struct {
	Replay ReplayConfig    `mapstructure:"replay"`
	Synth  synthweb.Config `mapstructure:"synth"`
}

// ReplayConfig configures the archive replay server.
type ReplayConfig struct {
	Latency       time.Duration        `mapstructure:"latency"`
	CrawlMinDelay time.Duration        `mapstructure:"crawl_min_delay"`
	CrawlPerHost  int                  `mapstructure:"crawl_per_host"`
	Search        replay.SearchOptions `mapstructure:"search"`
}

// Validate reports every problem in the replay settings.
func (r ReplayConfig) Validate() error {
	errs := []error{replay.Options{Latency: r.Latency, Search: replay.SearchOptions{
		Enabled: true, PageSize: r.Search.PageSize, MaxResults: r.Search.MaxResults,
	}}.Validate()}
	if r.CrawlMinDelay < 0 {
		errs = append(errs, fmt.Errorf("web.replay.crawl_min_delay = %v: must be >= 0", r.CrawlMinDelay))
	}
	// crawl_per_host is printed as a crawler.politeness.overrides entry.
	errs = append(errs, between("web.replay.crawl_per_host", r.CrawlPerHost, 1, crawler.MaxFetches))
	return errors.Join(errs...)
}

// LogConfig selects the log level and format.
type LogConfig struct {
	Level  string `mapstructure:"level"`
	Format string `mapstructure:"format"`
}

// Validate gathers every problem in the configuration.
func (c *Config) Validate() error {
	var errs []error
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log.level = %q: must be one of debug, info, warn, error", c.Log.Level))
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		errs = append(errs, fmt.Errorf("log.format = %q: must be text or json", c.Log.Format))
	}
	if c.Frontier.Window > c.Repo.StatsKept {
		errs = append(errs, fmt.Errorf("frontier.window = %d: must be <= repo.stats_kept (%d), the ΔQ measurements kept", c.Frontier.Window, c.Repo.StatsKept))
	}
	// Checked here too, not only when a crawl builds its frontier: a
	// command would otherwise create its data directory first.
	if c.Monitor.Instant > c.Frontier.Budget.Period {
		errs = append(errs, fmt.Errorf("monitor.instant = %v: must be at most frontier.budget.period (%v), the period whose budget monitoring shares", c.Monitor.Instant, c.Frontier.Budget.Period))
	}
	// Adding a watch over the API fetches its page within the request:
	// a fetch as long as the write timeout would leave the client an
	// empty reply rather than the fetch's error.
	if c.Watch.FetchTimeout >= c.Server.HTTP.WriteTimeout {
		errs = append(errs, fmt.Errorf("watch.fetch_timeout = %v: must be shorter than server.http.write_timeout (%v), within which adding a watch fetches its page", c.Watch.FetchTimeout, c.Server.HTTP.WriteTimeout))
	}
	errs = append(errs, c.Repo.Validate(), c.Crawler.Validate(), c.Frontier.Validate(frontier.Policies()),
		c.Index.Validate(), c.Discovery.Validate(), c.Ranking.Validate(), c.Ads.Validate(), c.Server.Validate(), c.Web.Replay.Validate(),
		c.Web.Synth.Validate(), c.Demo.Validate(), c.Eval.Ads.Validate(), c.Eval.Discovery.Validate(), c.Eval.Ranking.Validate(), c.Eval.Sync.ValidateOwn(), c.Eval.Relation.Validate(), c.Relation.Validate(),
		c.Monitor.Validate(), c.Feeds.Validate(), c.Eval.Feeds.Validate(), c.Eval.Monitor.Validate(),
		c.Watch.Validate(), c.Notify.Validate(), c.Alert.Validate(), c.Eval.Sentinels.Validate(), c.Cluster.ValidateSettings(), c.Eval.Fanout.Validate())
	return errors.Join(errs...)
}

// Sources are where settings come from, in increasing precedence after the
// embedded defaults.
type Sources struct {
	// File is an optional YAML file; "" means none.
	File string
	// Env is the environment as KEY=VALUE lines; nil means os.Environ().
	Env []string
	// Flags are bound by key: FlagKeys maps a flag name to the config key it
	// sets. Only flags the user actually set take effect.
	Flags    *pflag.FlagSet
	FlagKeys map[string]string
}

// EnvPrefix starts every environment variable that sets a key.
const EnvPrefix = "DELTAQ"

// Load builds the effective configuration and validates it. It reports
// every problem at once: the values that do not fit their key (of the
// wrong kind, or under a key that does not exist), which keep their
// default, then what Validate finds in the settings that did fit.
func Load(src Sources) (*Config, error) {
	l := loading{origin: map[string]string{}, dropped: map[string]bool{}}
	v, err := l.newViper(src)
	if err != nil {
		return nil, err
	}
	var cfg Config
	var md mapstructure.Metadata
	if err := v.UnmarshalExact(&cfg, viper.DecodeHook(decodeHook()), func(c *mapstructure.DecoderConfig) { c.Metadata = &md }); err != nil {
		// The checks of check.go should leave nothing mapstructure refuses.
		return nil, fmt.Errorf("config: invalid:\n%w", errors.Join(append(l.errs, err)...))
	}
	inheritOverrides(&cfg.Crawler.Politeness, md.Unset)
	// One query length limit, the index's, serves the search API too, and
	// one depth of results, the ranking's, limits its pages.
	cfg.Server.MaxQueryBytes = cfg.Index.MaxQueryBytes
	cfg.Server.Candidates = cfg.Ranking.Candidates
	// One α and ε_b serve the crawler and its evaluation.
	cfg.Eval.Discovery.Alpha, cfg.Eval.Discovery.EpsilonB = cfg.Discovery.Alpha, cfg.Discovery.EpsilonB
	// The synchronization evaluation runs the components as configured.
	cfg.Eval.Sync.Crawler, cfg.Eval.Sync.Frontier = cfg.Crawler, cfg.Frontier
	cfg.Eval.Sync.Index, cfg.Eval.Sync.Repo = cfg.Index, cfg.Repo
	cfg.Eval.Sync.Discovery = cfg.Discovery
	cfg.Eval.Sync.Candidates = cfg.Ranking.Candidates
	errs := l.errs
	if err := cfg.Validate(); err != nil {
		// A refused value was left at its default: what Validate says
		// of that default is not what the user wrote.
		if err := withoutKeys(err, l.dropped); err != nil {
			errs = append(errs, withOrigins(err, l.origin))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("config: invalid:\n%w", errors.Join(errs...))
	}
	return &cfg, nil
}

// inheritOverrides gives each politeness override the key it leaves out
// (unset, as mapstructure names the fields no input set) from the
// politeness settings it overrides: {host: a.test, per_host: 1} keeps
// the delay, where a zero would drop it.
func inheritOverrides(p *crawler.PolitenessConfig, unset []string) {
	for i := range p.Overrides {
		o, key := &p.Overrides[i], fmt.Sprintf("crawler.politeness.overrides[%d].", i)
		if slices.Contains(unset, key+"min_delay") {
			o.MinDelay = p.MinDelay
		}
		if slices.Contains(unset, key+"per_host") {
			o.PerHost = p.PerHost
		}
	}
}

// loading is what Load learns while it lays down the settings.
type loading struct {
	// origin is where each key that is not a default was set.
	origin map[string]string
	// dropped holds the keys whose value was refused and left out.
	dropped map[string]bool
	// errs are the refused values and unknown keys, each named where it
	// was set.
	errs []error
}

// Effective returns the merged settings as YAML, for `deltaq config print`.
func Effective(src Sources) ([]byte, error) {
	cfg, err := Load(src)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(toPlain(reflect.ValueOf(cfg).Elem())); err != nil {
		return nil, fmt.Errorf("config: render: %w", err)
	}
	return buf.Bytes(), nil
}

// MaxFileBytes bounds a configuration file: the defaults are 52 KB, and
// a file without end (/dev/zero) must not be read until memory runs out.
const MaxFileBytes = 4 << 20

// newViper lays down the defaults, the file, the environment and the
// flags, checking each against Config first (check.go). A value that does
// not fit is left out, noted in l, and the rest laid down; an error
// returned is one that stops loading: a file that cannot be read or is not
// YAML.
func (l *loading) newViper(src Sources) (*viper.Viper, error) {
	v := viper.NewWithOptions(viper.KeyDelimiter("."))
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(DefaultYAML)); err != nil {
		return nil, fmt.Errorf("config: embedded defaults: %w", err)
	}
	if src.File != "" {
		data, err := boundedfile.Read(src.File, MaxFileBytes, "a configuration file")
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		doc, err := parseFile(src.File, data)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		if errs := checkFile(src.File, doc, l.origin, l.dropped); len(errs) > 0 {
			l.errs = append(l.errs, errs...)
			// What fits is laid down without what was taken out.
			if data, err = yaml.Marshal(unaliased(doc)); err != nil {
				return nil, fmt.Errorf("config: %s: %w", src.File, err)
			}
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("config: %s: %w", src.File, err)
		}
	}
	env := src.Env
	if env == nil {
		env = os.Environ()
	}
	known := make(map[string]string)
	for _, k := range v.AllKeys() {
		known[envName(k)] = k
	}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix+"_") {
			continue
		}
		key, ok := known[name]
		if !ok {
			l.errs = append(l.errs, fmt.Errorf("environment variable %s names no setting", name))
			continue
		}
		l.set(v, name, key, func() (any, error) { return setting(name, key, val) })
	}
	// Flags last: viper's Set outranks everything else, so flags set after
	// the environment win over it.
	if src.Flags != nil {
		src.Flags.Visit(func(f *pflag.Flag) {
			key, ok := src.FlagKeys[f.Name]
			if !ok {
				return
			}
			l.set(v, "--"+f.Name, key, func() (any, error) {
				if sv, ok := f.Value.(pflag.SliceValue); ok {
					return listSetting("--"+f.Name, key, sv.GetSlice())
				}
				return setting("--"+f.Name, key, f.Value.String())
			})
		})
	}
	return v, nil
}

// set sets key to the value read from src, if it fits; if not, the key
// keeps the value it had, and is noted as refused if that is its default.
func (l *loading) set(v *viper.Viper, src, key string, read func() (any, error)) {
	x, err := read()
	if err != nil {
		l.errs = append(l.errs, err)
		if _, set := l.origin[key]; !set {
			// Left at its default, not at a value an earlier source gave.
			l.dropped[key] = true
		}
		return
	}
	v.Set(key, x)
	l.origin[key] = src
	// A later source set what an earlier one got wrong.
	delete(l.dropped, key)
}

// envName is the environment variable for a key: crawler.limits.max_depth →
// DELTAQ_CRAWLER_LIMITS_MAX_DEPTH.
func envName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

func decodeHook() mapstructure.DecodeHookFunc {
	return mapstructure.ComposeDecodeHookFunc(
		mapstructure.StringToTimeDurationHookFunc(),
		mapstructure.StringToSliceHookFunc(","),
	)
}

// toPlain renders a config struct as nested maps keyed by mapstructure tags,
// so `config print` shows the same key names as default.yaml, in field order.
func toPlain(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Struct:
		node := &yaml.Node{Kind: yaml.MappingNode}
		t := v.Type()
		for i := range t.NumField() {
			tag := t.Field(i).Tag.Get("mapstructure")
			if tag == "" || tag == "-" {
				continue
			}
			var val yaml.Node
			if err := val.Encode(toPlain(v.Field(i))); err != nil {
				continue
			}
			node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: tag}, &val)
		}
		return node
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toPlain(v.Index(i))
		}
		return out
	default:
		if d, ok := v.Interface().(fmt.Stringer); ok && v.Type().PkgPath() == "time" {
			return d.String()
		}
		return v.Interface()
	}
}
