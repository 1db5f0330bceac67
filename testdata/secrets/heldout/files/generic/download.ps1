$webClient.Credentials = new-object System.Net.NetworkCredential("cidownload", "AP7JaG9ToerxBc6gWP5LcU2CNpb");
