const token = "xoxp-466373-720310-044426-71dff0cc06d5ce359a15";
