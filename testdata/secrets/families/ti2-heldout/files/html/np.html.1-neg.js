<input type="password" value="{{this.value}}" />
<input type="password" value="{{ this.value }}" />
<input type="password" value="${config.password}" />
<input type="password" value="{% block password %}{% endblock %}" />
