package httpio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// MaxBodyBytes caps every request body; larger bodies get a 413.
const MaxBodyBytes = 1 << 20

// DecodeBody reads a JSON object into dst. A body that is not JSON, not an
// object, has trailing data or a field of the wrong type is a 422 with the
// field's location, never a 500. Unknown fields are ignored so older
// clients keep working when fields are added.
func DecodeBody(r *http.Request, dst any) error {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return Status(http.StatusRequestEntityTooLarge, "Request body too large (limit "+strconv.Itoa(MaxBodyBytes)+" bytes)")
		}
		return Status(http.StatusBadRequest, "Could not read request body")
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return Invalid("missing", "Field required", nil, "body")
	}
	if trimmed[0] != '{' {
		var v any
		_ = json.Unmarshal(trimmed, &v)
		return Invalid("model_attributes_type", "Input should be a valid object", v, "body")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			loc := []any{"body"}
			if typeErr.Field != "" {
				for _, p := range strings.Split(typeErr.Field, ".") {
					loc = append(loc, p)
				}
			}
			return Invalid(jsonTypeName(typeErr.Type.Kind().String()), "Input should be a valid "+typeErr.Type.String(), typeErr.Value, loc...)
		}
		return Invalid("json_invalid", "JSON decode error: "+err.Error(), nil, "body")
	}
	if dec.More() {
		return Invalid("json_invalid", "Unexpected data after the JSON object", nil, "body")
	}
	if _, err := dec.Token(); err != io.EOF {
		return Invalid("json_invalid", "Unexpected data after the JSON object", nil, "body")
	}
	return nil
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "string_type"
	case "bool":
		return "bool_type"
	case "slice", "array":
		return "list_type"
	case "map", "struct":
		return "dict_type"
	case "int", "int64", "int32", "uint", "uint64":
		return "int_type"
	case "float64", "float32":
		return "float_type"
	}
	return "type_error"
}

// QueryInt parses an optional integer query parameter within [min, max].
func QueryInt(r *http.Request, name string, def, min, max int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, Invalid("int_parsing", "Input should be a valid integer", v, "query", name)
	}
	if n < min {
		return 0, Invalid("greater_than_equal", "Input should be greater than or equal to "+strconv.Itoa(min), v, "query", name)
	}
	if n > max {
		return 0, Invalid("less_than_equal", "Input should be less than or equal to "+strconv.Itoa(max), v, "query", name)
	}
	return n, nil
}

// QueryBool parses an optional boolean query parameter.
func QueryBool(r *http.Request, name string) (bool, error) {
	switch strings.ToLower(r.URL.Query().Get(name)) {
	case "", "0", "false", "no", "off":
		return false, nil
	case "1", "true", "yes", "on":
		return true, nil
	}
	return false, Invalid("bool_parsing", "Input should be a valid boolean", r.URL.Query().Get(name), "query", name)
}

// SplitCSV splits a comma-separated query value into its non-empty,
// trimmed items (a repeated filter such as severity=high,critical).
func SplitCSV(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
