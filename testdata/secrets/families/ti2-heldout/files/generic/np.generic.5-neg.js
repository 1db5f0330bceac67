"password": "&lt;YOURPASSWROD&gt;"
