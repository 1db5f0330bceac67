// Package openapi is the route table's shape and the OpenAPI 3.1 document
// generated from it: the routes and the Go types they declare are the one
// source, so the document cannot drift from the code.
package openapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"scand/auth"
	"scand/finding"
)

// Param documents one query or path parameter in OpenAPI.
type Param struct {
	Name        string
	In          string // "query" or "path"
	Type        string // "string", "integer", "boolean"
	Required    bool
	Description string
	Enum        []string
	Default     any
	Minimum     *int
	Maximum     *int
}

// Header documents one response header in OpenAPI.
type Header struct {
	Name        string
	Type        string // "string" or "integer"
	Description string
}

// Route is one row of the route table.
type Route struct {
	Method string
	// Path is relative to /api/v1 for API routes and absolute for public
	// routes, in Go 1.22 pattern syntax.
	Path   string
	Public bool
	// Scope is the one scope the route requires; empty for public routes.
	Scope auth.Scope
	// RateLimited routes take a token from the caller's bucket.
	RateLimited bool
	// EventToken routes also accept a valid event_token query parameter.
	EventToken bool
	Summary    string
	Tag        string
	Params     []Param
	// Request is a zero value of the JSON body type, or nil.
	Request any
	// Response is a zero value of the success body type, or nil for none.
	Response any
	// Status is the success status code (200 when zero).
	Status int
	// ContentTypes lists non-JSON success media types.
	ContentTypes []string
	// Headers documents response headers of a success.
	Headers []Header
	// Errors lists the documented error statuses besides auth errors.
	Errors []int
	// ErrorBodies gives the body type of an error status whose body is not
	// ErrorBody (for example /ready's 503, which keeps the readiness shape).
	ErrorBodies map[int]any
	// RawRequest is the media type of a body that is not JSON (an uploaded
	// archive), documented as binary; "" for none.
	RawRequest string
	// MaxBody overrides maxBodyBytes for this route's body; -1 means the
	// archive upload limit (VulnDBConfig.MaxUpload).
	MaxBody int64
	Handler func(http.ResponseWriter, *http.Request) error
}

// SuccessStatus is the route's success status code.
func (rt Route) SuccessStatus() int {
	if rt.Status == 0 {
		return http.StatusOK
	}
	return rt.Status
}

// Pattern returns the mux pattern of rt under prefix.
func (rt Route) Pattern(prefix string) string {
	if rt.Public {
		p := rt.Path
		if p == "/" {
			p = "/{$}"
		}
		return rt.Method + " " + p
	}
	return rt.Method + " " + prefix + rt.Path
}

// ErrorBody is the SPEC.md error shape for everything but 422.
type ErrorBody struct {
	Detail string `json:"detail"`
}

// ValidationError is one entry of a 422 detail list (SPEC.md Errors 2).
type ValidationError struct {
	Type  string `json:"type"`
	Loc   []any  `json:"loc"`
	Msg   string `json:"msg"`
	Input any    `json:"input"`
}

// ValidationBody is the 422 error shape.
type ValidationBody struct {
	Detail []ValidationError `json:"detail"`
}

// RateLimitBody is the 429 error shape.
type RateLimitBody struct {
	Detail      string `json:"detail"`
	RetryAfter  int    `json:"retry_after"`
	LimitPerMin int    `json:"limit_per_min"`
}

// Info is what the document says besides the routes.
type Info struct {
	Title, Version, Description, License string
	// Prefix is where API (not public) routes are mounted.
	Prefix string
	// TagDescriptions explains each operation tag.
	TagDescriptions map[string]string
}

// Document builds the OpenAPI 3.1 document of routes.
func Document(routes []Route, info Info) map[string]any {
	g := &schemaGen{components: map[string]any{}}
	paths := map[string]map[string]any{}
	for _, rt := range routes {
		path := rt.Path
		if !rt.Public {
			path = info.Prefix + rt.Path
		}
		op := g.operation(rt)
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(rt.Method)] = op
	}
	// Error bodies are referenced by name from every operation; schemaOf
	// registers each as a component. Its return value is only the $ref, so
	// it must never be stored as the component itself.
	for _, body := range []any{ErrorBody{}, ValidationBody{}, RateLimitBody{}} {
		g.schemaOf(reflect.TypeOf(body))
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       info.Title,
			"version":     info.Version,
			"description": info.Description,
			"license":     map[string]any{"name": info.License},
		},
		"servers": []any{map[string]any{"url": "/"}},
		"tags":    documentTags(routes, info.TagDescriptions),
		"paths":   paths,
		"components": map[string]any{
			"schemas": g.components,
			"securitySchemes": map[string]any{
				"ApiKeyHeader": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key"},
				"BearerAuth":   map[string]any{"type": "http", "scheme": "bearer"},
				"EventToken":   map[string]any{"type": "apiKey", "in": "query", "name": "event_token"},
			},
		},
	}
}

// documentTags lists every tag an operation uses, in first-use order, with
// its description.
func documentTags(routes []Route, descriptions map[string]string) []any {
	var out []any
	seen := map[string]bool{}
	for _, rt := range routes {
		if rt.Tag == "" || seen[rt.Tag] {
			continue
		}
		seen[rt.Tag] = true
		tag := map[string]any{"name": rt.Tag}
		if d := descriptions[rt.Tag]; d != "" {
			tag["description"] = d
		}
		out = append(out, tag)
	}
	return out
}

type schemaGen struct {
	components map[string]any
}

func (g *schemaGen) operation(rt Route) map[string]any {
	op := map[string]any{
		"summary":     rt.Summary,
		"operationId": operationID(rt),
		"tags":        []string{rt.Tag},
	}
	var params []any
	for _, name := range pathParams(rt.Path) {
		p := Param{Name: name, In: "path", Type: "string", Required: true}
		for _, declared := range rt.Params {
			if declared.Name == name && declared.In == "path" {
				p = declared
			}
		}
		params = append(params, paramSchema(p))
	}
	for _, p := range rt.Params {
		if p.In == "query" {
			params = append(params, paramSchema(p))
		}
	}
	if params != nil {
		op["parameters"] = params
	}
	if rt.Request != nil {
		op["requestBody"] = map[string]any{
			"required": true,
			"content":  map[string]any{"application/json": map[string]any{"schema": g.schemaOf(reflect.TypeOf(rt.Request))}},
		}
	}
	if rt.RawRequest != "" {
		op["requestBody"] = map[string]any{
			"required": true,
			"content":  map[string]any{rt.RawRequest: map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}}},
		}
	}
	responses := map[string]any{}
	success := map[string]any{"description": http.StatusText(rt.SuccessStatus())}
	content := map[string]any{}
	if rt.Response != nil {
		content["application/json"] = map[string]any{"schema": g.schemaOf(reflect.TypeOf(rt.Response))}
	}
	for _, ct := range rt.ContentTypes {
		content[ct] = map[string]any{"schema": map[string]any{"type": "string"}}
	}
	if len(content) > 0 {
		success["content"] = content
	}
	if len(rt.Headers) > 0 {
		headers := map[string]any{}
		for _, h := range rt.Headers {
			headers[h.Name] = map[string]any{"description": h.Description, "schema": map[string]any{"type": h.Type}}
		}
		success["headers"] = headers
	}
	responses[strconv.Itoa(rt.SuccessStatus())] = success
	errs := append([]int(nil), rt.Errors...)
	if !rt.Public {
		// 403 also answers a browser-made write (api/hardening); 429 also
		// an address in its failed-authentication back-off.
		errs = append(errs, 401, 403, 429)
		if rt.Method != http.MethodGet && rt.Method != http.MethodHead {
			errs = append(errs, http.StatusUnsupportedMediaType)
		}
		if rt.Request != nil {
			errs = append(errs, 413, 422)
		}
		var sec []any
		sec = append(sec, map[string]any{"ApiKeyHeader": []string{}}, map[string]any{"BearerAuth": []string{}})
		if rt.EventToken {
			sec = append(sec, map[string]any{"EventToken": []string{}})
		}
		op["security"] = sec
		op["x-required-scope"] = string(rt.Scope)
		if rt.RateLimited {
			op["x-rate-limited"] = true
		}
		// Any authenticated request may write (a DB key's last_used_at at
		// least), so any of them can meet a full disk.
		errs = append(errs, http.StatusInsufficientStorage)
	} else {
		// An empty list overrides a document-wide requirement: tools and
		// readers must not think these routes need a key.
		op["security"] = []any{}
	}
	for _, code := range errs {
		var schema map[string]any
		switch {
		case rt.ErrorBodies[code] != nil:
			schema = g.schemaOf(reflect.TypeOf(rt.ErrorBodies[code]))
		case code == http.StatusUnprocessableEntity:
			schema = g.schemaOf(reflect.TypeOf(ValidationBody{}))
		case code == http.StatusTooManyRequests:
			schema = g.schemaOf(reflect.TypeOf(RateLimitBody{}))
		default:
			schema = g.schemaOf(reflect.TypeOf(ErrorBody{}))
		}
		responses[strconv.Itoa(code)] = map[string]any{
			"description": http.StatusText(code),
			"content":     map[string]any{"application/json": map[string]any{"schema": schema}},
		}
	}
	op["responses"] = responses
	return op
}

func operationID(rt Route) string {
	id := strings.ToLower(rt.Method)
	for _, part := range strings.Split(strings.Trim(rt.Path, "/"), "/") {
		part = strings.Trim(part, "{}")
		part = strings.ReplaceAll(part, ".", "_")
		part = strings.ReplaceAll(part, "-", "_")
		if part != "" {
			id += "_" + part
		}
	}
	if rt.Path == "/" {
		id += "_root"
	}
	return id
}

func pathParams(path string) []string {
	var out []string
	for _, part := range strings.Split(path, "/") {
		if strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}") {
			out = append(out, strings.TrimSuffix(strings.Trim(part, "{}"), "..."))
		}
	}
	return out
}

func paramSchema(p Param) map[string]any {
	sch := map[string]any{"type": p.Type}
	if p.Enum != nil {
		sch["enum"] = p.Enum
	}
	if p.Default != nil {
		sch["default"] = p.Default
	}
	if p.Minimum != nil {
		sch["minimum"] = *p.Minimum
	}
	if p.Maximum != nil {
		sch["maximum"] = *p.Maximum
	}
	out := map[string]any{"name": p.Name, "in": p.In, "required": p.Required || p.In == "path", "schema": sch}
	if p.Description != "" {
		out["description"] = p.Description
	}
	return out
}

var (
	timeType = reflect.TypeOf(time.Time{})
	cweType  = reflect.TypeOf(finding.CWE(""))
	rawType  = reflect.TypeOf(json.RawMessage{})
)

// schemaOf maps a Go type to a JSON Schema (2020-12, as OpenAPI 3.1
// uses); named structs become components referenced by $ref.
func (g *schemaGen) schemaOf(t reflect.Type) map[string]any {
	switch t {
	case timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case cweType:
		return map[string]any{"type": []string{"string", "null"}, "description": "CWE id such as CWE-798, or null"}
	case rawType:
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		inner := g.schemaOf(t.Elem())
		if ref, ok := inner["$ref"]; ok {
			return map[string]any{"anyOf": []any{map[string]any{"$ref": ref}, map[string]any{"type": "null"}}}
		}
		if typ, ok := inner["type"].(string); ok {
			cp := map[string]any{}
			for k, v := range inner {
				cp[k] = v
			}
			cp["type"] = []string{typ, "null"}
			return cp
		}
		return map[string]any{"anyOf": []any{inner, map[string]any{"type": "null"}}}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.schemaOf(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schemaOf(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := t.Name()
		if name == "" {
			return g.structSchema(t)
		}
		if _, ok := g.components[name]; !ok {
			g.components[name] = map[string]any{} // placeholder breaks recursion
			g.components[name] = g.structSchema(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{}
}

func (g *schemaGen) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	g.collectFields(t, props, &required)
	sort.Strings(required)
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

func (g *schemaGen) collectFields(t reflect.Type, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			g.collectFields(ft, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		sch := g.schemaOf(f.Type)
		if doc := f.Tag.Get("doc"); doc != "" {
			if _, isRef := sch["$ref"]; isRef {
				sch = map[string]any{"allOf": []any{sch}, "description": doc}
			} else {
				cp := map[string]any{"description": doc}
				for k, v := range sch {
					cp[k] = v
				}
				sch = cp
			}
		}
		props[name] = sch
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}
