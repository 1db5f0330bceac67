var gcpToken string = "AIzaSyNHxIf32IQ1a1yjl3ZJIqKZqzLAK1XhDk-"
