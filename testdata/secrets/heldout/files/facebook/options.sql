INSERT INTO wp_options VALUES (81,'fb_settings','a:1:{s:12:\"fbconnectkey\";s:32:\"8f52d1586bd18a18e152289b00ed7d29\";}','yes');
