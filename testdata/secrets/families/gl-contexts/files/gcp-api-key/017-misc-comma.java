System.setProperty("GCP_TOKEN", "AIzaSyNHxIf32IQ1a1yjl3ZJIqKZqzLAK1XhDk-")
