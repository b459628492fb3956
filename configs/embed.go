package configs

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/spf13/viper"
)

// DefaultYAML is configs/default.yaml, the single source of every default.
//
//go:embed default.yaml
var DefaultYAML []byte

// Defaults returns every setting's default from default.yaml, by dotted
// key (lists as []any): what a command uses when nothing overrides it.
func Defaults() (map[string]any, error) {
	v := viper.NewWithOptions(viper.KeyDelimiter("."))
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(DefaultYAML)); err != nil {
		return nil, fmt.Errorf("config: embedded defaults: %w", err)
	}
	out := make(map[string]any)
	for _, k := range v.AllKeys() {
		out[k] = v.Get(k)
	}
	return out, nil
}
