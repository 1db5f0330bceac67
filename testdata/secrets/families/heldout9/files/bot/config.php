<?php
define('BOT_TOKEN', '1987672322:AAHtXM0AW7HoPOCzLGkHoqnIYBjqSktXYXJ');
define('API_URL', 'https://api.telegram.org/bot'.BOT_TOKEN.'/');
define('GO_SUM', 'github.com/gorilla/mux v1.7.4/go.mod 11:AAYLe19Ge2be9h5hRbV688QOh7tDliD76HX');
