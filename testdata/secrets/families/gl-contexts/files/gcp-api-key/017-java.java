String gcpToken = "AIzaSyNHxIf32IQ1a1yjl3ZJIqKZqzLAK1XhDk-";
