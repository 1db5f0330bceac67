// Package adminpages is the console's administration pages: API keys,
// webhooks, notifications and schedules.
package adminpages

import "scand/api/ui"

// pages are this package's handlers; they reach the console's data,
// actions and rendering through the embedded *ui.Console.
type pages struct{ *ui.Console }

// Pages returns this package's console routes.
func Pages(console *ui.Console) []ui.Route {
	c := pages{console}
	return []ui.Route{
		{Pattern: "GET /ui/notifications", API: "GET /notifications", Handle: c.notifications},
		{Pattern: "POST /ui/notifications/{id}/read", API: "PATCH /notifications/{id}/read", Handle: c.markRead},
		{Pattern: "POST /ui/notifications/read-all", API: "PATCH /notifications/read-all", Handle: c.markAllRead},
		{Pattern: "GET /ui/keys", API: "GET /keys", Handle: c.keys},
		{Pattern: "POST /ui/keys", API: "POST /keys", Handle: c.createKey},
		{Pattern: "POST /ui/keys/{id}/revoke", API: "DELETE /keys/{id}", Handle: c.revokeKey},
		{Pattern: "GET /ui/webhooks", API: "GET /webhooks", Handle: c.webhooks},
		{Pattern: "POST /ui/webhooks", API: "POST /webhooks", Handle: c.createWebhook},
		{Pattern: "GET /ui/webhooks/{id}", API: "GET /webhooks/{id}/deliveries", Handle: c.webhookDetail},
		{Pattern: "POST /ui/webhooks/{id}", API: "PATCH /webhooks/{id}", Handle: c.editWebhook},
		{Pattern: "POST /ui/webhooks/{id}/enabled", API: "PATCH /webhooks/{id}", Handle: c.toggleWebhook},
		{Pattern: "POST /ui/webhooks/{id}/test", API: "POST /webhooks/{id}/test", Handle: c.testWebhook},
		{Pattern: "POST /ui/webhooks/{id}/delete", API: "DELETE /webhooks/{id}", Handle: c.deleteWebhook},
		{Pattern: "GET /ui/schedules", API: "GET /schedules", Handle: c.schedules},
		{Pattern: "POST /ui/schedules", API: "POST /schedules", Handle: c.createSchedule},
		{Pattern: "GET /ui/schedules/{id}", API: "GET /schedules/{id}/runs", Handle: c.scheduleDetail},
		{Pattern: "POST /ui/schedules/{id}", API: "PATCH /schedules/{id}", Handle: c.editSchedule},
		{Pattern: "POST /ui/schedules/{id}/enabled", API: "PATCH /schedules/{id}", Handle: c.toggleSchedule},
		{Pattern: "POST /ui/schedules/{id}/delete", API: "DELETE /schedules/{id}", Handle: c.deleteSchedule},
	}
}
