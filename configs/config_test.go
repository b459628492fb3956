package configs

import (
	"bytes"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
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

func TestBadFilesNameTheKeyAndTheLimit(t *testing.T) {
	cases := []struct {
		file string
		want []string
	}{
		{"unknown_key.bad.yaml", []string{"min_dealy"}},
		{"negative_delay.bad.yaml", []string{
			"crawler.politeness.min_delay = -1s: must be >= 0",
			"crawler.politeness.per_host = 0: must be >= 1",
		}},
		{"bad_resolve.bad.yaml", []string{
			`crawler.resolve[0] = "tldr-en.test": want HOST=ADDR`,
			`crawler.resolve[1] = "x.test=127.0.0.1": ADDR must be host:port`,
		}},
		{"bad_log.bad.yaml", []string{
			`log.level = "loud": must be one of debug, info, warn, error`,
			"repo.versions_kept = 0: must be >= 1",
		}},
		{"not_yaml.bad.yaml", []string{"not_yaml.bad.yaml"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, err := Load(Sources{File: filepath.Join("testdata", c.file), Env: []string{}})
			if err == nil {
				t.Fatal("loaded without error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
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
