const connectionString = "Endpoint=https://acme-chat.webpubsub.azure.com;AccessKey=iKZSXHTEahA9PpyMGIEALHcUDAuNP5MDJzB6rN3ldKdOgToiL55nJQQJ99DEvgiwe8YKmNR4Gx4TAWPSeurk;Version=1.0;";
