package main

import (
	"context"
	"log/slog"

	"scand/sse"
	"scand/store"
)

// app holds the background parts main.go starts after listening and stops
// after the HTTP server has drained.
type app struct {
	ready func() bool
	start func(context.Context)
	stop  func()
}

func wire(ctx context.Context, cfg config, st *store.Store, bus *sse.Bus, log *slog.Logger) (*app, error) {
	return &app{ready: func() bool { return true }, start: func(context.Context) {}, stop: func() {}}, nil
}
