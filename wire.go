package main

import (
	"context"
	"log/slog"
	"time"

	"scand/hook"
	"scand/notify"
	"scand/sse"
	"scand/store"
)

// app holds the background parts main.go starts after listening and stops
// after the HTTP server has drained.
type app struct {
	ready func() bool
	start func(context.Context)
	stop  func()
	hooks *hook.Dispatcher
}

func wire(ctx context.Context, cfg config, st *store.Store, bus *sse.Bus, log *slog.Logger) (*app, error) {
	hooks := hook.New(hook.Config{Store: st, Log: log.With("logger", "scand.hook"), Now: time.Now, AllowPrivate: cfg.WebhookAllowPriv})
	notes := notify.New(notify.Config{Store: st, Log: log.With("logger", "scand.notify"), Now: time.Now})
	bus.AddSink("webhooks", hooks.Sink)
	bus.AddSink("notifications", notes.Sink)
	a := &app{ready: func() bool { return true }, hooks: hooks}
	a.start = func(ctx context.Context) {
		if err := hooks.Start(ctx); err != nil {
			log.Error("webhook dispatcher did not start", "error", err.Error())
		}
		if err := notes.Start(ctx); err != nil {
			log.Error("notifications did not start", "error", err.Error())
		}
	}
	a.stop = func() {
		notes.Stop(hook.DefaultStopTimeout)
		hooks.Stop()
	}
	return a, nil
}
