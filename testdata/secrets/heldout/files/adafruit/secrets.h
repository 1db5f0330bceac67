#define IO_USERNAME  "maker"
#define IO_KEY       "aio_NrZCb67VvzSaM7fr3nMXrfZ1uMPH"
