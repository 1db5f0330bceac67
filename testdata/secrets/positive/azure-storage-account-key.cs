class Storage {
    const string Conn = "BlobEndpoint=https://invoicesprod.blob.core.windows.net/;AccountKey=ugHvNxzbxKWaDXNkoxpMhNglFcOzfBQeYFPafmrVbe21siICbvzijbS1NTdHG5tpde8WPa6roIA/I93OVn9fBQ==";
}
