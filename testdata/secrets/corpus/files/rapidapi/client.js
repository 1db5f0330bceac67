headers: {"X-RapidAPI-Key": "2_B3hzu8Z7U-k3KkENovDXr8NJPqOsTb6pOd-Whw7Dxasy7KHy"},
